import { describe, expect, it } from "vitest";
import { apiKeys, emailOtp, hashSecret, jwt, type FullStore } from "@latchkey/core";
import {
  describeViolations,
  exploreFaults,
  noSessionFromReplacedPassword,
  spentTokenHadEffect,
  structuralViolations,
  takeSnapshot,
  type Snapshot,
  type SnapshotScope,
  type Violation,
} from "@latchkey/test-support";
import { bearer, type TestAuth } from "../../test/test-auth.ts";
import {
  answer,
  compensatingMemoryStore,
  freshEmail,
  report,
  seamAuth,
  seamHasher,
  sharedStore,
  tokenOf,
  type Answer,
} from "../../test/seams/harness.ts";
import { testStoreKind } from "../../test/test-stores.ts";

const OLD = "correct horse battery";
const NEW = "a brand new password";
const plugins = [emailOtp({ emailChange: { enabled: true } }), apiKeys(), jwt()] as const;
type T = TestAuth<typeof plugins>;

/** One multi-write flow under every fault: what it needs, what its success means, how a user repeats it. */
interface FaultCase<C> {
  prepare(t: T): Promise<C>;
  request(t: T, c: C): Promise<Answer>;
  scope(c: C, a: Answer | null): SnapshotScope;
  /** What of the flow's effect is missing now (null: all of it happened). */
  missing(t: T, c: C, a: Answer | null): Promise<string | null>;
  /** Flow-specific invariants (I4, I5) on the snapshot. */
  invariants?(t: T, c: C, s: Snapshot): Promise<Violation[]>;
  /** Repeats the request as the user would; asserts it succeeds, or that it says why and the effect is there. */
  retry(t: T, c: C): Promise<void>;
}

const credentialHash = async (t: T, userId: string) =>
  (await t.store.accounts.listByUser(userId)).find((a) => a.passwordHash)?.passwordHash ?? null;
const hasPassword = async (t: T, userId: string, password: string) => {
  const hash = await credentialHash(t, userId);
  return hash !== null && (await seamHasher.verify(hash, password));
};
const alive = async (t: T, token: string) => (await t.store.sessions.findByTokenHash(hashSecret(token))) !== null;
const otpFor = async (t: T, email: string, purpose: string) => {
  expect((await t.request("POST", "/email-otp/send-verification-otp", { body: { email, purpose } })).status).toBe(200);
  return t.auth.getOtp(email)!;
};

function underFaults<C>(name: string, fc: FaultCase<C>, makeStore: () => FullStore = sharedStore) {
  it(`${name}: every k-th write failing, and a crash after every k-th write, leaves the invariants and a retry`, async () => {
    const store = makeStore();
    const r = await exploreFaults({
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins }) as T;
        return { t, c: await fc.prepare(t) };
      },
      flow: ({ t, c }) => fc.request(t, c),
      async afterFault({ t, c }, outcome, fault) {
        const a = outcome.ok ? outcome.value : null;
        if (a && fault.mode === "fail") {
          if (a.status === 200) expect(await fc.missing(t, c, a), "a 200 for work not done").toBeNull();
          else {
            expect(a.status).toBeGreaterThanOrEqual(400);
            expect(typeof a.body.code, JSON.stringify(a.body)).toBe("string");
            expect(typeof a.body.message).toBe("string");
          }
        }
        const snap = await takeSnapshot(t.store, fc.scope(c, a));
        const violations = [...structuralViolations(snap), ...((await fc.invariants?.(t, c, snap)) ?? [])];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
      async retry({ t, c }) {
        await fc.retry(t, c);
        expect(await fc.missing(t, c, null), "after the retry").toBeNull();
      },
    });
    report(store.kind.endsWith("(compensation)") ? `${name} [compensation]` : name, r);
  });
}

const cases: Array<[string, FaultCase<never>]> = [];
const faultCase = <C>(name: string, fc: FaultCase<C>) => {
  cases.push([name, fc as unknown as FaultCase<never>]);
  underFaults(name, fc);
};

describe("a failure at every write step", () => {
  faultCase("sign-up", {
    prepare: async () => ({ email: freshEmail() }),
    request: (t, c) => answer(t.request("POST", "/sign-up/email", { body: { email: c.email, password: OLD } })),
    scope: (c, a) => ({ emails: [c.email], sessionTokens: tokenOf(a ?? undefined) ? [tokenOf(a ?? undefined)!] : [] }),
    async missing(t, c, a) {
      const user = await t.store.users.findByEmail(c.email);
      if (!user) return "no user";
      if (!(await hasPassword(t, user.id, OLD))) return "no password";
      const token = tokenOf(a ?? undefined);
      return token && !(await alive(t, token)) ? "the answered session is gone" : null;
    },
    async retry(t, c) {
      const again = await answer(t.request("POST", "/sign-up/email", { body: { email: c.email, password: OLD } }));
      if (again.status !== 200) {
        expect(again.status, JSON.stringify(again.body)).toBe(422);
        const signIn = await answer(t.request("POST", "/sign-in/email", { body: { email: c.email, password: OLD } }));
        expect(signIn.status).toBe(200);
      }
    },
  });

  faultCase("OTP sign-in of a new user", {
    prepare: async (t) => {
      const email = freshEmail("otp");
      return { email, code: await otpFor(t, email, "sign-in") };
    },
    request: (t, c) => answer(t.request("POST", "/sign-in/email-otp", { body: { email: c.email, otp: c.code } })),
    scope: (c, a) => ({ emails: [c.email], sessionTokens: tokenOf(a ?? undefined) ? [tokenOf(a ?? undefined)!] : [] }),
    async missing(t, c, a) {
      const user = await t.store.users.findByEmail(c.email);
      if (!user) return "no user";
      const token = tokenOf(a ?? undefined);
      return token && !(await alive(t, token)) ? "the answered session is gone" : null;
    },
    async retry(t, c) {
      let again = await answer(t.request("POST", "/sign-in/email-otp", { body: { email: c.email, otp: c.code } }));
      if (again.status !== 200) {
        // The code is spent: the flow can be redone with a new one.
        expect(again.body.code).toBe("INVALID_OTP");
        const code = await otpFor(t, c.email, "sign-in");
        again = await answer(t.request("POST", "/sign-in/email-otp", { body: { email: c.email, otp: code } }));
      }
      expect(again.status, JSON.stringify(again.body)).toBe(200);
    },
  });

  for (const kind of ["link", "OTP"] as const) {
    faultCase(`password reset by ${kind}`, {
      async prepare(t) {
        const email = freshEmail();
        const { token: other, userId } = await t.signUp(email, OLD);
        const path = kind === "link" ? "/request-password-reset" : "/email-otp/request-password-reset";
        expect((await t.request("POST", path, { body: { email } })).status).toBe(200);
        return { email, other, userId, secret: t.auth.getOtp(email)! };
      },
      request: (t, c) =>
        answer(
          kind === "link"
            ? t.request("POST", "/reset-password", { body: { token: c.secret, newPassword: NEW } })
            : t.request("POST", "/email-otp/reset-password", {
                body: { email: c.email, otp: c.secret, password: NEW },
              }),
        ),
      scope: (c) => ({ userIds: [c.userId], sessionTokens: [c.other], identifiers: [`otp:password-reset:${c.email}`] }),
      async missing(t, c) {
        if (!(await hasPassword(t, c.userId, NEW))) return "the password was not replaced";
        return (await alive(t, c.other)) ? "the other sessions are alive" : null;
      },
      async invariants(t, c, s) {
        const row =
          kind === "link"
            ? await t.store.verifications.findByValueHash(hashSecret(c.secret))
            : s.verifications.get(`otp:password-reset:${c.email}`);
        const replaced = await hasPassword(t, c.userId, NEW);
        const revoked = !(await alive(t, c.other));
        return [
          ...(await noSessionFromReplacedPassword(s, [{ token: c.other, password: OLD }], seamHasher)),
          // Sessions gone without the new password is safe and redoable (a new token finishes it); the new
          // password with the old sessions alive is the part that must never be left behind.
          ...spentTokenHadEffect(`the ${kind} reset token`, row, () =>
            replaced && revoked ? "complete" : replaced ? { partial: "the other sessions are alive" } : "none",
          ),
        ];
      },
      async retry(t, c) {
        const again = await this.request(t, c);
        if (again.status === 200 || (await this.missing(t, c, null)) === null) return;
        // The token is spent and nothing happened (I5): the user asks for a new one and resets.
        expect(again.body.code).toBe(kind === "link" ? "INVALID_TOKEN" : "INVALID_OTP");
        const path = kind === "link" ? "/request-password-reset" : "/email-otp/request-password-reset";
        expect((await t.request("POST", path, { body: { email: c.email } })).status).toBe(200);
        const redo = await this.request(t, { ...c, secret: t.auth.getOtp(c.email)! });
        expect(redo.status, JSON.stringify(redo.body)).toBe(200);
      },
    });
  }

  faultCase("set-password (after a mailbox proof)", {
    async prepare(t) {
      const email = freshEmail("otp");
      const first = await answer(
        t.request("POST", "/sign-in/email-otp", { body: { email, otp: await otpFor(t, email, "sign-in") } }),
      );
      const second = await answer(
        t.request("POST", "/sign-in/email-otp", { body: { email, otp: await otpFor(t, email, "sign-in") } }),
      );
      return { token: tokenOf(first)!, other: tokenOf(second)!, userId: (first.body.user as { id: string }).id };
    },
    request: (t, c) =>
      answer(t.request("POST", "/set-password", { headers: bearer(c.token), body: { newPassword: NEW } })),
    scope: (c) => ({ userIds: [c.userId], sessionTokens: [c.token, c.other] }),
    async missing(t, c) {
      if (!(await hasPassword(t, c.userId, NEW))) return "no password";
      return (await alive(t, c.other)) ? "the other sessions are alive" : null;
    },
    async retry(t, c) {
      const again = await this.request(t, c);
      if (again.status !== 200) expect(again.status, JSON.stringify(again.body)).toBeLessThan(500);
    },
  });

  faultCase("change-password with revocation", {
    async prepare(t) {
      const email = freshEmail();
      const { token, userId } = await t.signUp(email, OLD);
      const other = tokenOf(await answer(t.request("POST", "/sign-in/email", { body: { email, password: OLD } })))!;
      return { token, other, userId };
    },
    request: (t, c) =>
      answer(
        t.request("POST", "/change-password", {
          headers: bearer(c.token),
          body: { currentPassword: OLD, newPassword: NEW, revokeOtherSessions: true },
        }),
      ),
    scope: (c) => ({ userIds: [c.userId], sessionTokens: [c.token, c.other] }),
    async missing(t, c) {
      if (!(await hasPassword(t, c.userId, NEW))) return "the password was not replaced";
      return (await alive(t, c.other)) ? "the other sessions are alive" : null;
    },
    invariants: async (_, c, s) => noSessionFromReplacedPassword(s, [{ token: c.other, password: OLD }], seamHasher),
    async retry(t, c) {
      const again = await this.request(t, c);
      if (again.status !== 200) expect(again.status, JSON.stringify(again.body)).toBe(401);
    },
  });

  faultCase("email change", {
    async prepare(t) {
      const email = freshEmail();
      const newEmail = freshEmail("new");
      const { token, userId } = await t.signUp(email, OLD);
      const req = await t.request("POST", "/email-otp/request-email-change", {
        headers: bearer(token),
        body: { newEmail },
      });
      expect(req.status).toBe(200);
      return { email, newEmail, token, userId, code: t.auth.getOtp(newEmail)! };
    },
    request: (t, c) =>
      answer(
        t.request("POST", "/email-otp/change-email", {
          headers: bearer(c.token),
          body: { newEmail: c.newEmail, otp: c.code },
        }),
      ),
    scope: (c) => ({ userIds: [c.userId], emails: [c.email, c.newEmail], sessionTokens: [c.token] }),
    async missing(t, c) {
      return (await t.store.users.findByEmail(c.newEmail))?.id === c.userId ? null : "the email did not change";
    },
    async retry(t, c) {
      let again = await this.request(t, c);
      if (again.status !== 200 && (await this.missing(t, c, null)) !== null) {
        expect(again.body.code).toBe("INVALID_OTP");
        const req = await t.request("POST", "/email-otp/request-email-change", {
          headers: bearer(c.token),
          body: { newEmail: c.newEmail },
        });
        expect(req.status).toBe(200);
        again = await answer(
          t.request("POST", "/email-otp/change-email", {
            headers: bearer(c.token),
            body: { newEmail: c.newEmail, otp: t.auth.getOtp(c.newEmail)! },
          }),
        );
      }
      if (again.status !== 200) expect(again.body.code).toBe("INVALID_OTP");
    },
  });

  faultCase("account deletion with the password", {
    async prepare(t) {
      const email = freshEmail();
      return { email, ...(await t.signUp(email, OLD)) };
    },
    request: (t, c) =>
      answer(t.request("POST", "/delete-account", { headers: bearer(c.token), body: { password: OLD } })),
    scope: (c) => ({ userIds: [c.userId], emails: [c.email], sessionTokens: [c.token] }),
    missing: async (t, c) => ((await t.store.users.findById(c.userId)) ? "the user is still there" : null),
    async retry(t, c) {
      const again = await this.request(t, c);
      if (again.status !== 200) expect(again.status, JSON.stringify(again.body)).toBe(401);
    },
  });

  faultCase("account deletion by emailed token", {
    async prepare(t) {
      const email = freshEmail();
      const { token, userId } = await t.signUp(email, OLD);
      expect((await t.request("POST", "/delete-account/request", { headers: bearer(token), body: {} })).status).toBe(
        200,
      );
      return { email, token, userId, secret: t.auth.getOtp(email)! };
    },
    request: (t, c) => answer(t.request("POST", "/delete-account/confirm", { body: { token: c.secret } })),
    scope: (c) => ({ userIds: [c.userId], emails: [c.email], sessionTokens: [c.token] }),
    missing: async (t, c) => ((await t.store.users.findById(c.userId)) ? "the user is still there" : null),
    async invariants(t, c) {
      const row = await t.store.verifications.findByValueHash(hashSecret(c.secret));
      const gone = (await t.store.users.findById(c.userId)) === null;
      return spentTokenHadEffect("the deletion token", row, () => (gone ? "complete" : "none"));
    },
    async retry(t, c) {
      const again = await answer(t.request("POST", "/delete-account/confirm", { body: { token: c.secret } }));
      if (again.status === 200 || (await t.store.users.findById(c.userId)) === null) return;
      // The token is spent and the user is still there (I5: redoable): ask for a new one.
      expect(again.body.code).toBe("INVALID_TOKEN");
      const req = await t.request("POST", "/delete-account/request", { headers: bearer(c.token), body: {} });
      expect(req.status).toBe(200);
      const secret = t.auth.getOtp(c.email)!;
      const redo = await answer(t.request("POST", "/delete-account/confirm", { body: { token: secret } }));
      expect(redo.status, JSON.stringify(redo.body)).toBe(200);
    },
  });

  faultCase("API-key reroll", {
    async prepare(t) {
      const { token, userId } = await t.signUp(freshEmail(), OLD);
      const created = await answer(t.request("POST", "/api-key/create", { headers: bearer(token), body: {} }));
      return { token, userId, key: created.body.key as string, keyId: (created.body.apiKey as { id: string }).id };
    },
    request: (t, c) =>
      answer(t.request("POST", "/api-key/reroll", { headers: bearer(c.token), body: { keyId: c.keyId } })),
    scope: (c) => ({ userIds: [c.userId], apiKeyIds: [c.keyId], apiKeyValues: [c.key] }),
    async missing(t, c, a) {
      const verify = async (key: string) =>
        (await answer(t.request("POST", "/api-key/verify", { body: { key } }))).body.valid === true;
      if (a?.status === 200 && !(await verify(a.body.key as string))) return "the new value does not verify";
      if (a === null) return null; // no answer: either value may be current, a further reroll decides
      return a.status === 200 && (await verify(c.key)) ? "the replaced value still verifies" : null;
    },
    async retry(t, c) {
      const again = await this.request(t, c);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect((await answer(t.request("POST", "/api-key/verify", { body: { key: c.key } }))).body.valid).toBe(false);
    },
  });

  it("JWT rotation: every k-th write failing, and a crash after every k-th write, leaves one active key and a retry", async () => {
    const store = sharedStore();
    const r = await exploreFaults({
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins }) as T;
        await t.auth.api.getJwks();
        return { t };
      },
      flow: ({ t }) => t.auth.api.rotateJwks(),
      async afterFault({ t }) {
        // A restarted instance loads the ring (and heals what a crash left) before anyone signs.
        const fresh = seamAuth(t.store, { plugins }) as T;
        await fresh.auth.api.getJwks();
        const snap = await takeSnapshot(t.store, { jwks: true });
        expect(structuralViolations(snap), describeViolations(structuralViolations(snap))).toEqual([]);
      },
      async retry({ t }) {
        await t.auth.api.rotateJwks();
        const snap = await takeSnapshot(t.store, { jwks: true });
        expect(structuralViolations(snap)).toEqual([]);
      },
    });
    report("JWT rotation", r);
  });
});

// D1 and a standalone MongoDB have no interactive transactions: `compensatingTransaction` stands in. The same
// flows and faults over the memory ports with that transaction (memory run only: it is the same code on any store).
describe.runIf(testStoreKind() === "memory")("a failure at every write step, with a compensating transaction", () => {
  for (const [name, fc] of cases) underFaults(name, fc, compensatingMemoryStore);
});
