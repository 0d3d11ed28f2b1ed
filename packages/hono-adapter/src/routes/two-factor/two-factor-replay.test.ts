import { describe, expect, it } from "vitest";
import { twoFactor } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import type { FullStore, TwoFactorRecord, TwoFactorStore } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { codeAt, codeOf, enabledUser, ip, PASSWORD, type Setup } from "./fixtures.ts";
import { storesForTestRun } from "../../../test/test-stores.ts";

describe("no code is accepted twice", () => {
  it("a code's step, and every earlier one, is spent; the next step is accepted only within window", async () => {
    const { t, post, record, setup } = await enabledUser({ window: 1 });
    const now = t.clock.now();
    // The code that enabled, and the previous step's: both at or before the stored step.
    for (const code of [codeAt(setup.secret, now), codeAt(setup.secret, now, -1)]) {
      const res = await post("/two-factor/disable", { password: PASSWORD, code });
      expect(res.status).toBe(400);
      expect(await codeOf(res)).toBe("INVALID_TWO_FACTOR_CODE");
    }
    // Two steps ahead is outside the window.
    const far = await post("/two-factor/disable", { password: PASSWORD, code: codeAt(setup.secret, now, 2) });
    expect(far.status).toBe(400);
    expect((await record())!.enabled).toBe(true);
    // The next step is inside it.
    const next = await post("/two-factor/disable", { password: PASSWORD, code: codeAt(setup.secret, now, 1) });
    expect(next.status).toBe(200);
    expect(await record()).toBeNull();
  });

  it("two instances on one store, one fresh code at once (both read the record before either writes): exactly one succeeds", async () => {
    // Two auth instances over one database (separate connections on sqlite and postgres). Each reads the record
    // through a barrier that opens once both requests have read it, so both match the code against the same last
    // step: only the store's conditional writes (the step's compare-and-set, then the record's delete) can refuse
    // the second, and the service must take their answer.
    const [first, second] = storesForTestRun(2) ?? [memoryStore(), null];
    const shared = first!;
    let armed = false;
    let waiting: Array<() => void> = [];
    const barrier = (store: FullStore): FullStore => {
      const port = store.twoFactor;
      const find = async (userId: string): Promise<TwoFactorRecord | null> => {
        const found = await port.find(userId);
        if (armed)
          await new Promise<void>((release) => {
            waiting.push(release);
            if (waiting.length === 2) {
              armed = false;
              for (const go of waiting.splice(0)) go();
            }
          });
        return found;
      };
      // Every method named: the test stores of sqlite and postgres hand out proxies, which a spread would not copy.
      const twoFactor: TwoFactorStore = {
        find,
        savePending: (record) => port.savePending(record),
        acceptStep: (userId, secret, step, at, options) => port.acceptStep(userId, secret, step, at, options),
        useRecoveryCode: (userId, codeHash, at) => port.useRecoveryCode(userId, codeHash, at),
        replaceRecoveryCodes: (userId, codeHashes, at) => port.replaceRecoveryCodes(userId, codeHashes, at),
        distrustDevices: (userId, at) => port.distrustDevices(userId, at),
        delete: (userId) => port.delete(userId),
      };
      return { ...store, twoFactor };
    };
    const options = { session: { expiresIn: "30d" as const, freshAge: "1d" as const }, plugins: [twoFactor()] };
    const a = createTestAuth({ ...options, store: barrier(shared) });
    const b = createTestAuth({ ...options, store: barrier(second ?? shared) });
    const { token, userId } = await a.signUp("ada@example.com", PASSWORD);
    const headers = bearer(token);
    const setup = (await (
      await a.request("POST", "/two-factor/enable", { body: { password: PASSWORD }, headers, ip: ip() })
    ).json()) as Setup;
    const first200 = await a.request("POST", "/two-factor/verify-setup", {
      body: { code: codeAt(setup.secret, a.clock.now()) },
      headers,
      ip: ip(),
    });
    expect(first200.status).toBe(200);
    for (const t of [a, b]) t.clock.advance(30_000);
    const code = codeAt(setup.secret, a.clock.now());
    armed = true;
    const results = await Promise.all(
      [a, b].map((t) => t.request("POST", "/two-factor/disable", { body: { code }, headers, ip: ip() })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
    const refused = results.find((r) => r.status === 400)!;
    expect(await codeOf(refused)).toBe("INVALID_TWO_FACTOR_CODE");
    expect(await shared.twoFactor.find(userId)).toBeNull();
    waiting = [];
  });
});
