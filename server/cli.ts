import {
  ConfigError,
  deriveEntries,
  parseConfig,
  prepareDataDir,
  USAGE,
  type GatehouseConfig,
} from "./config.js";
import { armFaultPoints, FaultSpecError } from "./fault-points.js";
import { startGatehouse } from "./host.js";
import { createLogger } from "./log.js";

/** Headless entry: `npm run serve -- [options]`. */
async function main(): Promise<void> {
  // Whatever this process and its children (the proxy core) create is private to this user
  // by default; the services still set 0700/0600 explicitly, since the desktop app and the
  // tests run without this umask.
  process.umask(0o077);
  let config;
  try {
    config = parseConfig(process.argv.slice(2));
    if (config === "help") {
      console.log(USAGE);
      return;
    }
    prepareDataDir(config.dataDir);
    // Crash points for the fault-injection tests; nothing is armed unless the variable is set.
    armFaultPoints(process.env.GATEHOUSE_FAULT);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof FaultSpecError) {
      console.error(`gatehouse: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }

  // Signals are handled from the start: one that arrives while the services are still
  // starting stops them as soon as they are up, instead of killing the process mid-start.
  let running: Awaited<ReturnType<typeof startGatehouse>> | undefined;
  let stopRequested = false;
  const stop = (): void => {
    stopRequested = true;
    // Still starting: stopped below as soon as it is up. Already stopping: nothing to add.
    if (!running) return;
    const services = running;
    running = undefined;
    services
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        console.error(`gatehouse: error while stopping: ${String(err)}`);
        process.exit(1);
      });
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  let started;
  try {
    // JSON log lines go to stderr; stdout keeps the start-up lines below and nothing else.
    started = await startGatehouse(config, createLogger({ level: config.logLevel }));
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { port?: number };
    console.error(
      `gatehouse: could not start: ${e.code === "EADDRINUSE" ? `port already in use (${e.message})${portAdvice(config, e.port)}` : e.message}`,
    );
    process.exit(e.code === "EADDRINUSE" || e.code === "EACCES" ? 2 : 1);
  }
  running = started;
  if (stopRequested) return stop();

  if (started.parcel) {
    console.log(`parcel service listening on ${started.parcel.url}`);
    if (started.parcel.httpsUrl)
      console.log(`parcel service listening on ${started.parcel.httpsUrl}`);
    // The addresses other devices use (the listening line names only one of them).
    for (const entry of started.parcel.entries) {
      if (entry !== started.parcel.url && entry !== started.parcel.httpsUrl)
        console.log(`parcel service reachable at ${entry}`);
    }
    // The LAN name joins a moment later, once the system resolved it to this machine.
    const before = new Set(started.parcel.entries);
    void started.lanName.then((name) => {
      if (!name) return;
      for (const entry of started.parcel?.entries ?? [])
        if (!before.has(entry)) console.log(`parcel service reachable at ${entry}`);
    });
    if (started.parcel.generatedAdminPassword) {
      console.log(
        `parcel administrator: ${started.parcel.adminUser} / ${started.parcel.generatedAdminPassword} (shown once; set GATEHOUSE_ADMIN_PASSWORD to choose your own)`,
      );
    }
  }
  if (started.proxy) {
    console.log(`proxy service listening on ${started.proxy.url}`);
    // The console's other addresses, found as the parcel service's are: the one to open from
    // another device on the LAN is among them.
    const port = Number(new URL(started.proxy.url).port);
    for (const address of deriveEntries(config.host, port, null))
      if (address !== started.proxy.url) console.log(`proxy service reachable at ${address}`);
    if (started.proxy.setupToken) console.log(`proxy setup token: ${started.proxy.setupToken}`);
    if (started.proxy.generatedPassword) {
      console.log(
        `proxy console password: ${started.proxy.generatedPassword} (shown once; every session was signed out; change it on the console's System page)`,
      );
    }
  }
}

/**
 * What to do about a port another program holds: the option that chose it (a second Gatehouse
 * still running holds them all, hence "or stop").
 */
function portAdvice(config: GatehouseConfig, port: number | undefined): string {
  const option =
    port === config.parcelPort
      ? "--parcel-port"
      : port === config.parcelHttpsPort
        ? "--parcel-https-port"
        : port === config.proxyPort
          ? "--proxy-port"
          : null;
  return option ? `: choose another with ${option}, or stop the program that holds it` : "";
}

// A failure the code above did not expect still ends the process with a code, so a service
// manager (or the desktop app running this headless) sees it instead of an idle process.
main().catch((err: unknown) => {
  console.error(`gatehouse: could not start: ${(err as Error)?.stack ?? String(err)}`);
  process.exit(1);
});
