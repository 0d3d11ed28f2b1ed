import { describe, expect, it } from "vitest";
import { hashSecret } from "@latchkey/core";
import { codeAt, codeOf, DAY, enabledUser, ip, PASSWORD, signedIn } from "./fixtures.ts";

describe("disable and recovery codes", () => {
  it("disable needs a code: without one nothing changes; a recovery code works once", async () => {
    const { userId, post, record, setup, events } = await enabledUser();
    const before = await record();
    const none = await post("/two-factor/disable", { password: PASSWORD });
    expect(none.status).toBe(400);
    expect(await codeOf(none)).toBe("INVALID_REQUEST");
    const wrongPassword = await post("/two-factor/disable", {
      password: "nope nope nope",
      code: setup.recoveryCodes[0],
    });
    expect(wrongPassword.status).toBe(401);
    expect(await record()).toEqual(before);

    const res = await post("/two-factor/disable", { password: PASSWORD, code: setup.recoveryCodes[0]!.toUpperCase() });
    expect(res.status).toBe(200);
    expect(await record()).toBeNull();
    const types = events.map((e) => e.type);
    expect(types).toContain("RecoveryCodeUsed");
    expect(events.find((e) => e.type === "TwoFactorDisabled")).toMatchObject({ userId, method: "recovery-code" });
    // Not on any more.
    const again = await post("/two-factor/disable", { password: PASSWORD, code: setup.recoveryCodes[1] });
    expect(again.status).toBe(400);
    expect(await codeOf(again)).toBe("TWO_FACTOR_NOT_ENABLED");
  });

  it("two parallel uses of one recovery code: exactly one wins", async () => {
    const { post, record, setup } = await enabledUser();
    const code = setup.recoveryCodes[3]!;
    // A fresh session, no password: no hashing in between, so the two requests interleave at every store call.
    const results = await Promise.all([post("/two-factor/disable", { code }), post("/two-factor/disable", { code })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(await record()).toBeNull();
  });

  it("regenerating kills the old codes at once; the new ones work", async () => {
    const { post, record, setup } = await enabledUser();
    const res = await post("/two-factor/recovery-codes", { password: PASSWORD });
    expect(res.status).toBe(200);
    const { recoveryCodes } = (await res.json()) as { recoveryCodes: string[] };
    expect(recoveryCodes).toHaveLength(10);
    expect((await record())!.recoveryCodes).toEqual(recoveryCodes.map((c) => hashSecret(c.replace("-", ""))));
    const old = await post("/two-factor/disable", { password: PASSWORD, code: setup.recoveryCodes[0] });
    expect(old.status).toBe(400);
    expect(await codeOf(old)).toBe("INVALID_TWO_FACTOR_CODE");
    expect((await post("/two-factor/disable", { password: PASSWORD, code: recoveryCodes[0] })).status).toBe(200);
  });

  it("regeneration needs two-factor on and a fresh session or the password", async () => {
    const { t, post, record } = await signedIn();
    const off = await post("/two-factor/recovery-codes", { password: PASSWORD });
    expect(off.status).toBe(400);
    expect(await codeOf(off)).toBe("TWO_FACTOR_NOT_ENABLED");
    expect(await record()).toBeNull();
    const on = await enabledUser();
    const before = await on.record();
    on.t.clock.advance(DAY + 1000);
    const stale = await on.post("/two-factor/recovery-codes", {});
    expect(stale.status).toBe(403);
    expect(await on.record()).toEqual(before);
    expect(t).toBeDefined();
  });
});

describe("second-factor lockout", () => {
  it("wrong codes lock the second factor (even the right code then) and nothing else; the events carry no secret", async () => {
    const { t, userId, post, record, setup, events, headers } = await enabledUser();
    t.clock.advance(30_000);
    for (let i = 0; i < 5; i++) {
      const res = await post("/two-factor/disable", { password: PASSWORD, code: "000000" });
      expect(res.status).toBe(400);
    }
    const right = await post("/two-factor/disable", { password: PASSWORD, code: codeAt(setup.secret, t.clock.now()) });
    expect(right.status).toBe(429);
    expect(await codeOf(right)).toBe("ACCOUNT_LOCKED");
    expect((await record())!.enabled).toBe(true);
    // The password is untouched by the second factor's failures.
    const password = await t.request("POST", "/verify-password", { body: { password: PASSWORD }, headers, ip: ip() });
    expect(password.status).toBe(200);
    const failed = events.filter((e) => e.type === "TwoFactorFailed");
    expect(failed).toHaveLength(5);
    expect(failed[0]).toMatchObject({ userId, reason: "invalid-code", action: "disable" });
    const text = JSON.stringify(events);
    expect(text).not.toContain(setup.secret);
    for (const code of setup.recoveryCodes) expect(text).not.toContain(code);
  });
});
