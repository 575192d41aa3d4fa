import { parentChannel, type ProcessSide } from "./desktop/parent-channel.js";
import { runDesktopServices } from "./desktop/run.js";
import { createLogger, DEFAULT_LOG_LEVEL, isLogLevel } from "./log.js";

/**
 * Entry of the services when the desktop app hosts them: an Electron utility process when
 * packaged, a Node child in development and tests. Options come as command-line arguments
 * (the same as `npm run serve`); everything else goes through the host protocol
 * (server/desktop/protocol.ts). JSON log lines go to stderr as in headless mode.
 */

// What the services and the proxy core create is private to this user, as with `npm run serve`.
process.umask(0o077);

const levelArg = process.argv.indexOf("--log-level");
const level = levelArg > 0 ? process.argv[levelArg + 1] : process.env.GATEHOUSE_LOG_LEVEL;
const logger = createLogger({ level: level && isLogLevel(level) ? level : DEFAULT_LOG_LEVEL });

const channel = parentChannel(process as unknown as ProcessSide, (problem) =>
  logger.warn({ service: "desktop", problem }, "ignored a malformed message from the host"),
);

void runDesktopServices({
  argv: process.argv.slice(2),
  channel,
  logger,
  // Electron's `kill()` of a utility process is a SIGTERM: a clean stop as well.
  onStopSignal: (stop) => {
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  },
  exit: (code) => process.exit(code),
}).catch((err: unknown) => {
  logger.error({ err }, "the desktop services failed");
  process.exit(1);
});
