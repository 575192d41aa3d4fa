import { describe, expect, it } from "vitest";
import { hashPassword, passwordWork, verifyPassword } from "../../server/password-hash.js";

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one or a malformed hash", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^scrypt\$16384\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
    expect(await verifyPassword("correct horse batterY", stored)).toBe(false);
    for (const bad of ["", "scrypt$1$2", "bcrypt$1$2$3$4$5", "scrypt$16384$8$1$c2FsdA$"]) {
      expect(await verifyPassword("x", bad)).toBe(false);
    }
  });

  it("runs at most two hashes at once and queues the rest, so file I/O keeps thread-pool room", async () => {
    const stored = await hashPassword("queue me please");
    let most = 0;
    const sampler = setInterval(() => (most = Math.max(most, passwordWork().running)), 1);
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        verifyPassword(i % 2 ? "queue me please" : "no", stored),
      ),
    );
    clearInterval(sampler);
    expect(results).toEqual(Array.from({ length: 10 }, (_, i) => i % 2 === 1));
    expect(most).toBe(2);
    expect(passwordWork()).toEqual({ running: 0, waiting: 0 });
  });
});
