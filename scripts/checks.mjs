// The checks `npm test` runs before the tests: ESLint, Prettier, the type check and the UI build,
// started together. Each is one process on one thread, so on two cores the four take the time
// of the longest pair instead of their sum. Each one's output is printed whole when it ends,
// with its time, and the first to fail makes the run fail (the others still finish and print).
// Prettier parses with Oxc (@prettier/plugin-oxc in .prettierrc.json): the same formatting, in
// about half of the CPU time of its default TypeScript parser.
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

const CHECKS = [
  ["ESLint", "npx", ["eslint", ".", "--max-warnings=0"]],
  ["Prettier", "npx", ["prettier", "--check", "."]],
  ["TypeScript", "npx", ["tsc", "-p", "tsconfig.json", "--noEmit"]],
  ["UI build", "npm", ["run", "--silent", "build:renderer"]],
];

function run([name, command, args]) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
    const output = [];
    child.stdout.on("data", (chunk) => output.push(chunk));
    child.stderr.on("data", (chunk) => output.push(chunk));
    child.on("error", (error) => resolve({ ok: false, text: String(error) }));
    child.on("close", (code, signal) =>
      resolve({
        ok: code === 0,
        text: Buffer.concat(output).toString("utf8") + (signal ? `\nended by ${signal}\n` : ""),
      }),
    );
  }).then((result) => {
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stdout.write(`\n== ${name}: ${result.ok ? "passed" : "FAILED"} in ${seconds} s\n`);
    if (result.text.trim() !== "") process.stdout.write(result.text.trimEnd() + "\n");
    return result.ok;
  });
}

const results = await Promise.all(CHECKS.map(run));
const failed = CHECKS.filter((_, i) => !results[i]).map(([name]) => name);
if (failed.length > 0) {
  process.stdout.write(`\nchecks failed: ${failed.join(", ")}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write("\nchecks: ESLint, Prettier, TypeScript and the UI build passed\n");
}
