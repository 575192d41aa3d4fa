import { afterEach, describe, expect, it, vi } from "vitest";
import {
  armFaultPoints,
  crashPoint,
  faultPoint,
  FaultSpecError,
} from "../../server/fault-points.js";

describe("fault points", () => {
  afterEach(() => {
    armFaultPoints(undefined);
    vi.restoreAllMocks();
  });

  it("do nothing when nothing is armed", async () => {
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    armFaultPoints("");
    crashPoint("proxy.settings-committed");
    await faultPoint("parcel.download-mid-body");
    expect(kill).not.toHaveBeenCalled();
  });

  it("refuse an unknown point, a malformed part and a count of 0", () => {
    expect(() => armFaultPoints("no.such-point")).toThrow(FaultSpecError);
    expect(() => armFaultPoints("proxy.settings-committed:explode")).toThrow(FaultSpecError);
    expect(() => armFaultPoints("proxy.settings-committed@0")).toThrow(FaultSpecError);
  });

  it("kill on the n-th pass only, once", () => {
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    armFaultPoints("proxy.settings-committed@3");
    crashPoint("proxy.settings-committed");
    crashPoint("proxy.settings-committed");
    expect(kill).not.toHaveBeenCalled();
    expect(() => crashPoint("proxy.settings-committed")).toThrow("unreachable");
    expect(kill).toHaveBeenCalledWith(process.pid, "SIGKILL");
    crashPoint("proxy.settings-committed");
    expect(kill).toHaveBeenCalledTimes(1);
  });

  it("pause holds that piece of work for good and says so", async () => {
    const kill = vi.spyOn(process, "kill").mockImplementation(() => true);
    const write = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    armFaultPoints("parcel.download-mid-body:pause");
    const held = faultPoint("parcel.download-mid-body");
    const state = await Promise.race([held.then(() => "resolved"), Promise.resolve("pending")]);
    expect(state).toBe("pending");
    expect(write).toHaveBeenCalledWith("fault point reached: parcel.download-mid-body\n");
    expect(kill).not.toHaveBeenCalled();
    await faultPoint("parcel.download-mid-body");
  });
});
