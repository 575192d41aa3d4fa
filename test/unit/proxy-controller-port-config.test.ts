import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../server/config.js";

const env: NodeJS.ProcessEnv = { PATH: "" };

function port(args: string[], e: NodeJS.ProcessEnv = env): number {
  const c = parseConfig(args, e);
  if (c === "help") throw new Error("unexpected help");
  return c.coreControllerPort;
}

describe("--core-controller-port", () => {
  it("is 9090 unless the option or GATEHOUSE_CORE_CONTROLLER_PORT says otherwise", () => {
    expect(port([])).toBe(9090);
    expect(port([], { ...env, GATEHOUSE_CORE_CONTROLLER_PORT: "" })).toBe(9090);
    expect(port([], { ...env, GATEHOUSE_CORE_CONTROLLER_PORT: "19090" })).toBe(19090);
    expect(port(["--core-controller-port", "9191"])).toBe(9191);
    expect(
      port(["--core-controller-port", "1"], { ...env, GATEHOUSE_CORE_CONTROLLER_PORT: "19090" }),
    ).toBe(1);
    expect(port(["--core-controller-port=65535"])).toBe(65535);
  });

  it.each(["0", "65536", "70000", "-1", "abc", "90 90", "", "9090.5", "0x2382"])(
    "refuses %j with a sentence naming the range",
    (value) => {
      const args = [`--core-controller-port=${value}`];
      expect(() => parseConfig(args, env)).toThrow(ConfigError);
      expect(() => parseConfig(args, env)).toThrow(
        `--core-controller-port must be a port number from 1 to 65535, not "${value}"`,
      );
    },
  );

  it("refuses a bad value from the environment the same way", () => {
    expect(() => parseConfig([], { ...env, GATEHOUSE_CORE_CONTROLLER_PORT: "nine" })).toThrow(
      '--core-controller-port must be a port number from 1 to 65535, not "nine"',
    );
  });

  it("must differ from the ports the services listen on", () => {
    expect(() => parseConfig(["--core-controller-port", "8080"], env)).toThrow(
      "--core-controller-port must differ from --proxy-port (8080)",
    );
    expect(() =>
      parseConfig(["--core-controller-port", "8000", "--proxy-only"], env),
    ).not.toThrow();
    expect(() => parseConfig(["--core-controller-port", "8000"], env)).toThrow(
      "--core-controller-port must differ from --parcel-port (8000)",
    );
  });
});
