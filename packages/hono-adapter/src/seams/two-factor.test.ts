import { describe, expect, it } from "vitest";
import { hashSecret, twoFactor } from "@latchkey/core";
import { exploreInterleavings } from "@latchkey/test-support";
import {
  answer,
  budget,
  freshEmail,
  PASSWORD,
  report,
  seamAuth,
  storeVariants,
  tokenOf,
  type Answer,
} from "../../test/seams/harness.ts";
import { bearer } from "../../test/test-auth.ts";
import { codeAt } from "../routes/two-factor/fixtures.ts";

// The second sign-in step racing the account's own two-factor changes. After every interleaving: a session exists
// exactly when the second step answered 200 (never without it), a spent pending sign-in is gone, and the record is
// what the change that answered 200 made it.
describe.each(storeVariants())("two-factor second step, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  /** A user with two-factor on, signed in once (its Bearer session), and a pending sign-in of a second device. */
  async function world(wrap: (s: typeof store) => typeof store) {
    const t = seamAuth(around(wrap(store)), { plugins: [twoFactor()] });
    const email = freshEmail();
    const { token, userId } = await t.signUp(email, PASSWORD);
    const headers = bearer(token);
    const setup = (await (await t.request("POST", "/two-factor/enable", { body: {}, headers })).json()) as {
      secret: string;
      recoveryCodes: string[];
    };
    const on = await t.request("POST", "/two-factor/verify-setup", {
      body: { code: codeAt(setup.secret, t.clock.now()) },
      headers,
    });
    expect(on.status).toBe(200);
    t.clock.advance(30_000);
    const first = await t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } });
    const pending = ((await first.json()) as { twoFactorToken: string }).twoFactorToken;
    expect(pending).toMatch(/.{43}/);
    return { t, userId, token, headers, setup, pending };
  }

  /** The sessions of the user besides the one it signed up with. */
  const newSessions = async (w: Awaited<ReturnType<typeof world>>) =>
    (await w.t.store.sessions.listByUser(w.userId)).filter((s) => s.tokenHash !== hashSecret(w.token));

  it("verify x disable: a session only from a 200 second step; disable always wins the record", async () => {
    const r = await exploreInterleavings({
      ...budget(),
      setup: world,
      flows: (w) => ({
        verify: () =>
          answer(
            w.t.request("POST", "/two-factor/verify", {
              body: { code: codeAt(w.setup.secret, w.t.clock.now()), twoFactorToken: w.pending },
            }),
          ),
        disable: () =>
          answer(
            w.t.request("POST", "/two-factor/disable", {
              body: { code: w.setup.recoveryCodes[0] },
              headers: w.headers,
            }),
          ),
      }),
      async check(w, run) {
        const verify = run.results.verify!.ok ? (run.results.verify!.value as Answer) : undefined;
        const disable = run.results.disable!.ok ? (run.results.disable!.value as Answer) : undefined;
        expect(disable?.status, JSON.stringify(disable?.body)).toBe(200);
        // 400: the code's step lost to the delete; 401: the record was already gone (the pending sign-in ends).
        expect([200, 400, 401], JSON.stringify(verify?.body)).toContain(verify?.status);
        expect(await w.t.store.twoFactor.find(w.userId)).toBeNull();
        const sessions = await newSessions(w);
        const late = tokenOf(verify);
        expect(sessions.map((s) => s.tokenHash)).toEqual(late ? [hashSecret(late)] : []);
        const row = await w.t.store.verifications.findByValueHash(hashSecret(w.pending));
        expect(row === null).toBe(verify?.status !== 400);
      },
    });
    report(`two-factor verify x disable${name}`, r);
  });

  it("recovery code x regeneration: the new codes are all kept, a session only from a 200 use", async () => {
    const r = await exploreInterleavings({
      ...budget(),
      setup: world,
      flows: (w) => ({
        use: () =>
          answer(
            w.t.request("POST", "/two-factor/verify-recovery-code", {
              body: { code: w.setup.recoveryCodes[0], twoFactorToken: w.pending },
            }),
          ),
        regenerate: () => answer(w.t.request("POST", "/two-factor/recovery-codes", { body: {}, headers: w.headers })),
      }),
      async check(w, run) {
        const use = run.results.use!.ok ? (run.results.use!.value as Answer) : undefined;
        const regenerate = run.results.regenerate!.ok ? (run.results.regenerate!.value as Answer) : undefined;
        expect(regenerate?.status, JSON.stringify(regenerate?.body)).toBe(200);
        expect([200, 400], JSON.stringify(use?.body)).toContain(use?.status);
        const fresh = regenerate!.body.recoveryCodes as string[];
        const record = await w.t.store.twoFactor.find(w.userId);
        expect(record?.recoveryCodes).toEqual(fresh.map((c) => hashSecret(c.replace("-", ""))));
        const late = tokenOf(use);
        expect((await newSessions(w)).map((s) => s.tokenHash)).toEqual(late ? [hashSecret(late)] : []);
      },
    });
    report(`two-factor recovery code x regeneration${name}`, r);
  });
});
