import { describe, expect, it } from "vitest";
import { apiKeys, jwt, type PasswordHasher } from "@latchkey/core";
import {
  describeViolations,
  exploreInterleavings,
  lockoutBound,
  quotaConserved,
  refusedKeyStaysRefused,
  structuralViolations,
  takeSnapshot,
  type Refusal,
} from "@latchkey/test-support";
import { bearer } from "../../test/test-auth.ts";
import {
  answer,
  answerOf,
  budget,
  freshEmail,
  PASSWORD,
  report,
  seamAuth,
  seamHasher,
  sharedStore,
  storeVariants,
  tokenOf,
} from "../../test/seams/harness.ts";

describe("wrong password x wrong password (the lockout), every interleaving", () => {
  const store = sharedStore();
  const MAX = 1;

  const pair = (second: "email" | "username") =>
    exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const checks = { count: 0 };
        const counting: PasswordHasher = {
          hash: (p) => seamHasher.hash(p),
          verify: (h, p) => {
            checks.count += 1;
            return seamHasher.verify(h, p);
          },
        };
        const t = seamAuth(wrap(store), {
          lockout: { enabled: true, maxFailures: MAX },
          passwordHasher: counting,
        });
        const email = freshEmail();
        const username = `u${email.split("@")[0]!.replace(/\W/g, "")}`.slice(0, 30);
        const { userId } = await t.signUp(email, PASSWORD, { username });
        checks.count = 0;
        return { t, email, username, userId, checks };
      },
      flows: ({ t, email, username }) => ({
        a: () =>
          answer(
            t.request("POST", "/sign-in/email", { body: { email, password: "wrong guess one" }, ip: "203.0.113.1" }),
          ),
        b: () =>
          answer(
            t.request("POST", "/sign-in/email", {
              body:
                second === "email" ? { email, password: "wrong guess two" } : { username, password: "wrong guess two" },
              ip: "203.0.113.2",
            }),
          ),
      }),
      async check({ t, userId, email, checks }, run) {
        for (const flow of ["a", "b"]) expect([401, 429]).toContain(answerOf(run, flow).status);
        const snap = await takeSnapshot(t.store, { userIds: [userId], emails: [email] });
        const violations = [...structuralViolations(snap), ...lockoutBound(checks.count, MAX)];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
    });

  it("two wrong passwords by email check at most maxFailures passwords", async () => {
    report("wrong password x wrong password (email, email)", await pair("email"));
  });

  it("a wrong password by email and one by username share the account's lockout", async () => {
    report("wrong password x wrong password (email, username)", await pair("username"));
  });
});

describe.each(storeVariants())("sign-in x account deletion, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  it("no session of the deleted user lives, and the sign-in answers 200 or 401 (never 500)", async () => {
    const r = await exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const t = seamAuth(around(wrap(store)));
        const email = freshEmail();
        const { token, userId } = await t.signUp(email, PASSWORD);
        return { t, email, token, userId };
      },
      flows: ({ t, email, token }) => ({
        signIn: () => answer(t.request("POST", "/sign-in/email", { body: { email, password: PASSWORD } })),
        delete: () =>
          answer(t.request("POST", "/delete-account", { body: { password: PASSWORD }, headers: bearer(token) })),
      }),
      async check({ t, email, token, userId }, run) {
        expect(answerOf(run, "delete").status).toBe(200);
        const signIn = answerOf(run, "signIn");
        expect([200, 401], JSON.stringify(signIn.body)).toContain(signIn.status);
        const late = tokenOf(signIn);
        const snap = await takeSnapshot(t.store, {
          userIds: [userId],
          emails: [email],
          sessionTokens: late ? [token, late] : [token],
        });
        expect(snap.users.get(userId)).toBeNull();
        const violations = structuralViolations(snap);
        expect(violations, describeViolations(violations)).toEqual([]);
      },
    });
    report(`sign-in x account deletion${name}`, r);
  });
});

describe("API-key verify x update/disable/delete/reroll, every interleaving", () => {
  const store = sharedStore();

  const refusals: Array<{ name: string; refusal: Refusal; path: string; write: string; extra?: object }> = [
    {
      name: "disable",
      refusal: "disabled",
      path: "/api-key/update",
      write: "apiKeys.update",
      extra: { enabled: false },
    },
    { name: "delete", refusal: "deleted", path: "/api-key/delete", write: "apiKeys.delete" },
    { name: "reroll", refusal: "replaced", path: "/api-key/reroll", write: "apiKeys.reroll" },
  ];

  for (const { name, refusal, path, write, extra } of refusals) {
    it(`verify x ${name}: a key refused before the verify read it never verifies, nor afterwards`, async () => {
      const r = await exploreInterleavings({
        ...budget(),
        async setup(wrap) {
          const t = seamAuth(wrap(store), { plugins: [apiKeys()] });
          const { token, userId } = await t.signUp(freshEmail());
          const created = await answer(t.request("POST", "/api-key/create", { body: {}, headers: bearer(token) }));
          expect(created.status).toBe(200);
          const key = created.body.key as string;
          const keyId = (created.body.apiKey as { id: string }).id;
          return { t, token, userId, key, keyId };
        },
        flows: ({ t, token, key, keyId }) => ({
          verify: () => answer(t.request("POST", "/api-key/verify", { body: { key } })),
          refuse: () => answer(t.request("POST", path, { body: { keyId, ...extra }, headers: bearer(token) })),
        }),
        async check({ t, userId, key, keyId }, run) {
          expect(answerOf(run, "refuse").status, JSON.stringify(answerOf(run, "refuse").body)).toBe(200);
          const verify = answerOf(run, "verify");
          expect(verify.status).toBe(200);
          if (verify.body.valid === true) {
            // Linearizable: the verify read the key before the refusal wrote it.
            const read = run.trace.lastIndexOf("verify:apiKeys.findByHashWithOwner");
            const refused = run.trace.indexOf(`refuse:${write}`);
            expect(read, run.trace.join(" ")).toBeGreaterThanOrEqual(0);
            expect(read, run.trace.join(" ")).toBeLessThan(refused);
          }
          const again = await answer(t.request("POST", "/api-key/verify", { body: { key } }));
          expect(again.body.valid).toBe(false);
          const snap = await takeSnapshot(t.store, { userIds: [userId], apiKeyIds: [keyId], apiKeyValues: [key] });
          const violations = [...structuralViolations(snap), ...refusedKeyStaysRefused(snap, key, refusal)];
          expect(violations, describeViolations(violations)).toEqual([]);
        },
      });
      report(`API-key verify x ${name}`, r);
    });
  }
});

describe("quota verify x quota verify, every interleaving", () => {
  const store = sharedStore();

  it("a key with one use left is granted exactly once", async () => {
    const r = await exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const t = seamAuth(wrap(store), { plugins: [apiKeys()] });
        const { userId } = await t.signUp(freshEmail());
        const { key, apiKey } = await t.auth.api.createApiKey({ userId, remaining: 1 });
        return { t, userId, key, keyId: apiKey.id };
      },
      flows: ({ t, key }) => ({
        a: () => answer(t.request("POST", "/api-key/verify", { body: { key } })),
        b: () => answer(t.request("POST", "/api-key/verify", { body: { key } })),
      }),
      async check({ t, userId, keyId }, run) {
        const granted = ["a", "b"].filter((f) => answerOf(run, f).body.valid === true).length;
        expect(granted).toBe(1);
        const snap = await takeSnapshot(t.store, { userIds: [userId], apiKeyIds: [keyId] });
        const violations = [...structuralViolations(snap), ...quotaConserved(snap, keyId, 1, granted)];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
    });
    report("quota verify x quota verify", r);
  });
});

describe("JWT rotation x rotation on two instances, every interleaving", () => {
  it("exactly one active key, the newest, and both instances sign with it", async () => {
    const store = sharedStore();
    const r = await exploreInterleavings({
      ...budget(),
      async setup(wrap) {
        const wrapped = wrap(store);
        const one = seamAuth(wrapped, { plugins: [jwt()] });
        const two = seamAuth(wrapped, { plugins: [jwt()] });
        await one.auth.api.getJwks();
        await two.auth.api.getJwks();
        const { token } = await one.signUp(freshEmail());
        return { one, two, token };
      },
      flows: ({ one, two }) => ({
        one: () => one.auth.api.rotateJwks(),
        two: () => two.auth.api.rotateJwks(),
      }),
      async check({ one, two, token }, run) {
        for (const flow of ["one", "two"]) expect(run.results[flow]!.ok, String(run.results[flow])).toBe(true);
        const snap = await takeSnapshot(one.store, { jwks: true });
        const violations = structuralViolations(snap);
        expect(violations, describeViolations(violations)).toEqual([]);
        for (const t of [one, two]) {
          const res = await answer(t.request("POST", "/token", { headers: bearer(token) }));
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        }
      },
    });
    report("JWT rotation x rotation (two instances)", r);
  });
});
