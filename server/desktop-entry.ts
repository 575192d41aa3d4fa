import { parseConfig, prepareDataDir } from "./config.js";
import { startGatehouse } from "./host.js";
import { createLogger } from "./log.js";

/**
 * Entry of the services when the desktop app hosts them in a child process. Options come as
 * command-line arguments (the same as `npm run serve`); status goes to the parent as messages.
 */
type Post = (message: unknown) => void;

function parentPost(): Post {
  const port = (process as unknown as { parentPort?: { postMessage(m: unknown): void } })
    .parentPort;
  if (port) return (m) => port.postMessage(m);
  if (process.send) return (m) => process.send?.(m);
  return (m) => console.log(JSON.stringify(m));
}

async function main(): Promise<void> {
  const post = parentPost();
  try {
    const config = parseConfig(process.argv.slice(2));
    if (config === "help") return;
    prepareDataDir(config.dataDir);
    const running = await startGatehouse(config, createLogger({ level: config.logLevel }));
    post({
      type: "ready",
      dataDir: config.dataDir,
      parcel: running.parcel && { url: running.parcel.url, entries: running.parcel.entries },
      proxy: running.proxy && { url: running.proxy.url },
      generatedAdminPassword: running.parcel?.generatedAdminPassword ?? null,
    });
    const stop = (): void => {
      running.stop().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
    process.on("message", (m) => {
      if (m === "stop") stop();
    });
  } catch (err) {
    post({ type: "error", error: (err as Error).message });
    process.exit(1);
  }
}

void main();
