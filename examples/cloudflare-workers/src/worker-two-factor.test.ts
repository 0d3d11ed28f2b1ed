// Two worker instances (two Miniflare processes) over one persisted D1, two-factor: one code or recovery code sent
// to both at once, and wrong codes spread over both. Setup: worker-fixture.ts.
import { describe, expect, it } from "vitest";
import { base32Decode, totp } from "@latchkey/core/internal";
import { BASE_URL, json, setUpWorkers, signUp, viaA, viaB } from "./worker-fixture.ts";

setUpWorkers({ other: true });

describe("two worker instances (two Miniflare processes) over one persisted D1 share what memory could not", () => {
  it("two-factor on D1: one code sent to both instances at once finishes one sign-in; a recovery code spent twice at once, once", async () => {
    const email = "second-factor@workers.example";
    const cookie = await signUp(email, "192.0.2.50");
    const withCookie = (body: unknown) => {
      const init = json(body);
      return { ...init, headers: { ...init.headers, cookie } };
    };
    const enabled = await viaA(
      new Request(`${BASE_URL}/auth/two-factor/enable`, withCookie({ password: "correct horse battery" })),
      "192.0.2.50",
    );
    expect(enabled.status).toBe(200);
    const { secret, recoveryCodes } = (await enabled.json()) as { secret: string; recoveryCodes: string[] };
    const key = base32Decode(secret)!;
    const code = (aheadMs: number) => totp(key, Date.now() + aheadMs, { digits: 6, period: 30, algorithm: "SHA1" });
    const setup = await viaB(
      new Request(`${BASE_URL}/auth/two-factor/verify-setup`, withCookie({ code: code(0) })),
      "192.0.2.50",
    );
    expect(setup.status).toBe(200);
    // Two pending sign-ins (token clients get the pending token in the answer), one made on each instance.
    const pending = async (via: typeof viaA, ip: string) => {
      const res = await via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", "latchkey-credentials": "bearer" },
          body: JSON.stringify({ email, password: "correct horse battery" }),
        }),
        ip,
      );
      const body = (await res.json()) as { twoFactorRequired?: boolean; twoFactorToken?: string };
      expect(body.twoFactorRequired).toBe(true);
      return body.twoFactorToken!;
    };
    // Two workerd processes over one local SQLite file can meet its write lock (Cloudflare's D1 has one writer):
    // that is a 503 DATABASE_UNAVAILABLE, which a client retries, as here. The retry of the loser must be refused.
    let unavailable = 0;
    const finish = async (via: typeof viaA, path: string, token: string, body: Record<string, unknown>, ip: string) => {
      for (let attempt = 0; ; attempt++) {
        const res = await via(
          new Request(`${BASE_URL}/auth/two-factor/${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...body, twoFactorToken: token }),
          }),
          ip,
        );
        if (res.status !== 503 || attempt === 5) return res;
        unavailable++;
        expect(((await res.json()) as { code: string }).code).toBe("DATABASE_UNAVAILABLE");
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    };
    // The next step's code (never used), to both instances at once: the step is stored by compare-and-set in D1.
    // A winner whose write after the compare-and-set met the lock answered 503 with its step already spent (D1 keeps
    // an update a failed request made: docs/stores.md), so its retry is refused too: then, and only then, the race
    // runs again with the next step's code (never two winners either way).
    let p1 = "";
    let p2 = "";
    let both: Response[] = [];
    for (let round = 0; round < 3; round++) {
      [p1, p2] = [await pending(viaA, "192.0.2.51"), await pending(viaB, "192.0.2.52")];
      const next = code(30_000);
      unavailable = 0;
      both = await Promise.all([
        finish(viaA, "verify", p1, { code: next, trustDevice: true }, "192.0.2.51"),
        finish(viaB, "verify", p2, { code: next, trustDevice: true }, "192.0.2.52"),
      ]);
      expect(both.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      if (unavailable === 0 || both.some((r) => r.status === 200)) break;
      await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 100));
    }
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    const refused = both.find((r) => r.status === 400)!;
    expect(((await refused.json()) as { code: string }).code).toBe("INVALID_TWO_FACTOR_CODE");
    const deviceToken = (
      (await both.find((r) => r.status === 200)!.json()) as { credentials: { trustedDeviceToken: string } }
    ).credentials.trustedDeviceToken;
    // One recovery code, two pending sign-ins, both instances at once: exactly one session.
    const [p3, p4] = [await pending(viaA, "192.0.2.53"), await pending(viaB, "192.0.2.54")];
    const recovery = await Promise.all([
      finish(viaA, "verify-recovery-code", p3, { code: recoveryCodes[0] }, "192.0.2.53"),
      finish(viaB, "verify-recovery-code", p4, { code: recoveryCodes[0] }, "192.0.2.54"),
    ]);
    expect(recovery.map((r) => r.status).sort()).toEqual([200, 400]);
    // A spent pending sign-in replayed, on the other instance: refused.
    const winner = both[0]!.status === 200 ? { via: viaB, token: p1 } : { via: viaA, token: p2 };
    const replay = await finish(winner.via, "verify", winner.token, { code: code(30_000) }, "192.0.2.55");
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { code: string }).code).toBe("INVALID_TWO_FACTOR_SIGN_IN");

    // Disabling without a code is refused; two-factor stays on (the next sign-in still stops at the second step).
    const noCode = await viaA(
      new Request(`${BASE_URL}/auth/two-factor/disable`, withCookie({ password: "correct horse battery" })),
      "192.0.2.50",
    );
    expect(noCode.status).toBe(400);
    await pending(viaB, "192.0.2.56");

    // The device trusted by the winning code skips the second step, until the password changes.
    const fromDevice = (via: typeof viaA, password: string, ip: string) =>
      via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", "latchkey-trusted-device": deviceToken },
          body: JSON.stringify({ email, password }),
        }),
        ip,
      );
    const skipped = (await (await fromDevice(viaA, "correct horse battery", "192.0.2.58")).json()) as {
      user?: unknown;
      twoFactorRequired?: boolean;
    };
    expect(skipped.twoFactorRequired).toBeUndefined();
    expect(skipped.user).toBeDefined();
    const changed = await viaB(
      new Request(
        `${BASE_URL}/auth/change-password`,
        withCookie({ currentPassword: "correct horse battery", newPassword: "another horse battery" }),
      ),
      "192.0.2.50",
    );
    expect(changed.status).toBe(200);
    const after = (await (await fromDevice(viaA, "another horse battery", "192.0.2.59")).json()) as {
      twoFactorRequired?: boolean;
    };
    expect(after.twoFactorRequired).toBe(true);
  }, 120_000);

  it("two-factor on D1: wrong codes spread over both instances lock the second step on either", async () => {
    const email = "locked-factor@workers.example";
    const cookie = await signUp(email, "192.0.2.60");
    const init = json({ password: "correct horse battery" });
    const enabled = await viaA(
      new Request(`${BASE_URL}/auth/two-factor/enable`, { ...init, headers: { ...init.headers, cookie } }),
      "192.0.2.60",
    );
    const { secret } = (await enabled.json()) as { secret: string };
    const key = base32Decode(secret)!;
    const now = totp(key, Date.now(), { digits: 6, period: 30, algorithm: "SHA1" });
    const setupInit = json({ code: now });
    const setup = await viaB(
      new Request(`${BASE_URL}/auth/two-factor/verify-setup`, {
        ...setupInit,
        headers: { ...setupInit.headers, cookie },
      }),
      "192.0.2.60",
    );
    expect(setup.status).toBe(200);
    const pendingOn = async (via: typeof viaA, ip: string) => {
      const res = await via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password: "correct horse battery" }),
        }),
        ip,
      );
      return ((await res.json()) as { twoFactorToken: string }).twoFactorToken;
    };
    const guess = (via: typeof viaA, token: string, code: string, ip: string) =>
      via(
        new Request(`${BASE_URL}/auth/two-factor/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code, twoFactorToken: token }),
        }),
        ip,
      );
    const wrong = now === "000000" ? "111111" : "000000";
    const onA = await pendingOn(viaA, "192.0.2.61");
    const onB = await pendingOn(viaB, "192.0.2.62");
    for (const [via, token, ip] of [
      [viaA, onA, "192.0.2.61"],
      [viaB, onB, "192.0.2.62"],
      [viaA, onA, "192.0.2.61"],
      [viaB, onB, "192.0.2.62"],
      [viaA, onA, "192.0.2.61"],
    ] as const)
      expect((await guess(via, token, wrong, ip)).status).toBe(400);
    // Locked for the account on both instances: even the right code of the next step is not checked.
    const next = totp(key, Date.now() + 30_000, { digits: 6, period: 30, algorithm: "SHA1" });
    const locked = await guess(viaB, onB, next, "192.0.2.62");
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
  });
});
