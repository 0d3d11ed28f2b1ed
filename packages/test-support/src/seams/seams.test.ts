import { hashSecret, type FullStore, type PasswordHasher } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { describe, expect, it } from "vitest";
import { createFaultStore, exploreFaults, InjectedCrash, InjectedWriteFailure } from "./faults.ts";
import { runAsFlow } from "./instrument.ts";
import {
  describeViolations,
  oneUserPerProviderSubject,
  noSessionOfBannedUser,
  everyOrganizationHasAnOwner,
  noMemberOfDeleted,
  nothingOfDeletedUsers,
  structuralViolations,
  usersCanSignIn,
} from "./invariants.ts";
import { noSessionFromReplacedPassword, spentTokenHadEffect } from "./flow-invariants.ts";
import { subjectKey, takeSnapshot, type Snapshot } from "./snapshot.ts";
import { createScheduler, exploreInterleavings } from "./scheduler.ts";

// Toy flows written directly against the ports: small enough to reason about by hand, real enough (the memory
// store, the real invariants) that a planted ordering bug is a real bug.

const hasher: PasswordHasher = {
  hash: async (p) => `plain:${p}`,
  verify: async (h, p) => h === `plain:${p}`,
};
const at = new Date(Date.UTC(2026, 5, 1));
const IDENTIFIER = "reset:ada";

async function seedAda(store: FullStore) {
  const user = {
    id: "u1",
    email: "ada@example.com",
    emailVerified: true,
    name: null,
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: at,
    updatedAt: at,
    banned: false,
    banReason: null,
    banExpires: null,
  };
  const account = {
    id: "a1",
    userId: "u1",
    providerId: "credential",
    passwordHash: await hasher.hash("old"),
    accountId: null,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    scope: null,
    createdAt: at,
    updatedAt: at,
  };
  await store.users.create(user, [account]);
  await store.sessions.create(session("attacker-token"));
  await store.verifications.issue(resetRow("v1"));
}

const resetRow = (id: string) => ({
  id,
  identifier: IDENTIFIER,
  valueHash: hashSecret("link"),
  attemptCount: 0,
  expiresAt: new Date(at.getTime() + 3_600_000),
  createdAt: at,
  userId: "u1",
  payload: null,
});

const session = (token: string) => ({
  id: `s-${token}`,
  userId: "u1",
  tokenHash: hashSecret(token),
  expiresAt: new Date(at.getTime() + 86_400_000),
  createdAt: at,
  updatedAt: at,
  ip: null,
  userAgent: null,
  rememberMe: true,
  impersonatedBy: null,
});
const credential = (hash: string) => ({
  id: "a1",
  userId: "u1",
  providerId: "credential",
  passwordHash: hash,
  accountId: null,
  accessToken: null,
  refreshToken: null,
  idToken: null,
  accessTokenExpiresAt: null,
  refreshTokenExpiresAt: null,
  scope: null,
  createdAt: at,
  updatedAt: at,
});

/** Sign-in that re-checks the password in the session's transaction (the fixed shape). */
async function signIn(store: FullStore, password: string, token: string): Promise<boolean> {
  const account = (await store.accounts.listByUser("u1")).find((a) => a.passwordHash);
  if (!account?.passwordHash || !(await hasher.verify(account.passwordHash, password))) return false;
  return store.transaction(async (tx) => {
    const now = (await tx.accounts.listByUser("u1")).find((a) => a.passwordHash);
    if (now?.passwordHash !== account.passwordHash) return false;
    await tx.sessions.create(session(token));
    return true;
  });
}

type ResetOrder = "password-revoke-spend" | "revoke-password-spend" | "password-spend-revoke";

/** A password reset whose steps run in the given order (each step its own write, as on a store without transactions). */
async function reset(store: FullStore, order: ResetOrder, password: string): Promise<boolean> {
  const row = await store.verifications.findByIdentifier(IDENTIFIER);
  if (!row) return false;
  const steps = {
    password: async () => store.accounts.upsertPassword("u1", credential(await hasher.hash(password))),
    revoke: async () => void (await store.sessions.deleteByUser("u1")),
    spend: async () => {
      if (!(await store.verifications.consume(row.id))) throw new Error("spent");
    },
  };
  for (const step of order.split("-") as Array<keyof typeof steps>) await steps[step]();
  return true;
}

describe("the scheduler", () => {
  it("enumerates every interleaving of two flows' store calls exactly once: C(3+2, 2) = 10", async () => {
    const traces = new Set<string>();
    const report = await exploreInterleavings({
      async setup(wrap) {
        return { store: wrap(memoryStore()) };
      },
      flows: ({ store }) => ({
        a: async () => {
          for (const k of ["a1", "a2", "a3"]) await store.counters.hit(k, 1000, 0);
        },
        b: async () => {
          for (const k of ["b1", "b2"]) await store.counters.peek(k, 0);
        },
      }),
      async check(_, run) {
        traces.add(run.trace.join(" "));
      },
    });
    expect(report).toMatchObject({ explored: 10, exhaustive: true, seed: null });
    expect(traces.size).toBe(10);
  });

  it("lets a test choose the order, and passes the test's own calls through", async () => {
    const s = createScheduler(memoryStore());
    await s.store.counters.hit("setup", 1000, 0); // outside a flow: not scheduled
    const run = await s.run(
      {
        a: () => s.store.counters.hit("k", 1000, 0),
        b: () => s.store.counters.hit("k", 1000, 0),
      },
      (waiting) => waiting.findIndex((w) => w.flow === "b"),
    );
    expect(run.trace).toEqual(["b:counters.hit", "a:counters.hit"]);
    expect(run.results.b).toEqual({ ok: true, value: { count: 1, resetAt: 1000 } });
    expect(run.results.a).toEqual({ ok: true, value: { count: 2, resetAt: 1000 } });
  });

  it("samples with a printed seed past the limit, and the same seed replays the same interleavings", async () => {
    const sample = async () => {
      const traces: string[] = [];
      const report = await exploreInterleavings({
        async setup(wrap) {
          return { store: wrap(memoryStore()) };
        },
        flows: ({ store }) => ({
          a: async () => {
            for (let i = 0; i < 6; i++) await store.counters.hit("a", 1000, 0);
          },
          b: async () => {
            for (let i = 0; i < 6; i++) await store.counters.hit("b", 1000, 0);
          },
        }),
        async check(_, run) {
          traces.push(run.trace.join(" "));
        },
        exhaustiveLimit: 5,
        samples: 20,
        seed: 1234,
      });
      return { report, traces };
    };
    const first = await sample();
    expect(first.report).toMatchObject({ explored: 25, exhaustive: false, seed: 1234 });
    expect((await sample()).traces).toEqual(first.traces);
    expect(new Set(first.traces.slice(5)).size).toBeGreaterThan(1);
  });

  const signInByReset = (order: ResetOrder) =>
    exploreInterleavings({
      async setup(wrap) {
        const store = wrap(memoryStore());
        await seedAda(store);
        return { store };
      },
      flows: ({ store }) => ({
        signIn: () => signIn(store, "old", "late-token"),
        reset: () => reset(store, order, "new"),
      }),
      async check({ store }) {
        const snap = await takeSnapshot(store, { userIds: ["u1"], sessionTokens: ["late-token", "attacker-token"] });
        const violations = [
          ...structuralViolations(snap),
          ...(await noSessionFromReplacedPassword(
            snap,
            [
              { token: "late-token", password: "old" },
              { token: "attacker-token", password: "old" },
            ],
            hasher,
          )),
        ];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
    });

  it("finds the planted bug: a reset that revokes sessions before writing the password lets an old-password sign-in survive", async () => {
    await expect(signInByReset("revoke-password-spend")).rejects.toThrow(
      /I4: a session signed in with a replaced password/,
    );
  });

  it("passes the same pair when the reset writes the password first", async () => {
    const report = await signInByReset("password-revoke-spend");
    expect(report.exhaustive).toBe(true);
    expect(report.explored).toBeGreaterThan(1);
  });
});

describe("the fault injector", () => {
  it("fails exactly the k-th write, and after a crash refuses every later call", async () => {
    const f = createFaultStore(memoryStore());
    f.arm({ mode: "fail", at: 2 });
    await f.store.counters.hit("x", 1000, 0);
    await expect(f.store.counters.hit("x", 1000, 0)).rejects.toBeInstanceOf(InjectedWriteFailure);
    expect(await f.store.counters.hit("x", 1000, 0)).toMatchObject({ count: 2 });
    f.arm({ mode: "crash", at: 1 });
    await f.store.counters.hit("y", 1000, 0);
    await expect(f.store.counters.peek("y", 0)).rejects.toBeInstanceOf(InjectedCrash);
    f.disarm();
    expect(await f.store.counters.peek("y", 0)).toMatchObject({ count: 1 });
    expect(f.writes).toEqual(["counters.hit"]);
  });

  it("rolls a transaction back when a write inside it fails", async () => {
    const f = createFaultStore(memoryStore());
    f.arm({ mode: "fail", at: 2 });
    await expect(
      f.store.transaction(async (tx) => {
        await tx.sessions.create(session("t1"));
        await tx.sessions.create(session("t2"));
      }),
    ).rejects.toBeInstanceOf(InjectedWriteFailure);
    f.disarm();
    expect(await f.store.sessions.findByTokenHash(hashSecret("t1"))).toBeNull();
  });

  const resetUnderFaults = (order: ResetOrder) =>
    exploreFaults({
      async setup(wrap) {
        const store = wrap(memoryStore());
        await seedAda(store);
        return { store };
      },
      flow: ({ store }) => runAsFlow("reset", () => reset(store, order, "new")),
      async afterFault({ store }, outcome) {
        expect(outcome.ok, "a faulted reset must not answer success").toBe(false);
        const snap = await takeSnapshot(store, {
          userIds: ["u1"],
          sessionTokens: ["attacker-token"],
          identifiers: [IDENTIFIER],
        });
        const violations = [
          ...structuralViolations(snap),
          ...spentTokenHadEffect(IDENTIFIER, snap.verifications.get(IDENTIFIER), () => {
            const replaced = (snap.accounts.get("u1") ?? []).some((a) => a.passwordHash === "plain:new");
            const revoked = !snap.sessions.get("attacker-token");
            if (replaced && revoked) return "complete";
            if (!replaced && !revoked) return "none";
            return { partial: replaced ? "the other sessions are alive" : "the password was not replaced" };
          }),
        ];
        expect(violations, describeViolations(violations)).toEqual([]);
      },
      async retry({ store }) {
        // Either the retry resets, or the link is spent, which (I5) means the reset already happened.
        if (!(await reset(store, order, "new"))) {
          await store.verifications.issue(resetRow("v2")); // a new link
          await reset(store, order, "new");
        }
        expect((await store.accounts.listByUser("u1"))[0]?.passwordHash).toBe("plain:new");
        expect(await store.sessions.findByTokenHash(hashSecret("attacker-token"))).toBeNull();
      },
    });

  it("finds the planted bug: a reset that spends the link before revoking leaves the attacker's session when the revocation fails", async () => {
    await expect(resetUnderFaults("password-spend-revoke")).rejects.toThrow(
      /I5: reset:ada is spent but only part of its effect happened: the other sessions are alive[\s\S]*--- fault: crash after verifications.consume/,
    );
  });

  it("passes every fault of a reset that spends the link last: 3 writes, 6 faults", async () => {
    expect(await resetUnderFaults("password-revoke-spend")).toEqual({
      writes: ["accounts.upsertPassword", "sessions.deleteByUser", "verifications.consume"],
      injected: 6,
    });
  });
});

describe("the account invariants (I14, I15)", () => {
  const user = (id: string) => ({
    id,
    email: `${id}@example.com`,
    emailVerified: true,
    name: null,
    image: null,
    username: null,
    displayUsername: null,
    metadata: {},
    appMetadata: {},
    createdAt: at,
    updatedAt: at,
    banned: false,
    banReason: null,
    banExpires: null,
  });
  const account = (
    id: string,
    userId: string,
    providerId: string,
    over: { passwordHash?: string; accountId?: string } = {},
  ) => ({
    id,
    userId,
    providerId,
    passwordHash: over.passwordHash ?? null,
    accountId: over.accountId ?? null,
    accessToken: null,
    refreshToken: null,
    idToken: null,
    accessTokenExpiresAt: null,
    refreshTokenExpiresAt: null,
    scope: null,
    createdAt: at,
    updatedAt: at,
  });
  const snapshot = (over: Partial<Snapshot>): Snapshot => ({
    users: new Map(),
    byEmail: new Map(),
    accounts: new Map(),
    sessionCounts: new Map(),
    sessions: new Map(),
    verifications: new Map(),
    apiKeys: new Map(),
    apiKeysByValue: new Map(),
    jwks: [],
    bySubject: new Map(),
    passkeys: new Map(),
    byCredential: new Map(),
    organizations: new Map(),
    memberships: new Map(),
    ...over,
  });
  const passkey = (id: string, userId: string) => ({
    id,
    userId,
    credentialId: `cred-${id}`,
    publicKey: "pk",
    counter: 0,
    transports: [],
    deviceType: "singleDevice" as const,
    backedUp: false,
    aaguid: "00000000-0000-0000-0000-000000000000",
    name: null,
    createdAt: at,
    lastUsedAt: null,
  });

  it("I1, I14 and I2 with passkeys: a passkey-only user passes; a passkey of a deleted user is a violation", () => {
    const only = snapshot({ users: new Map([["u1", user("u1")]]), passkeys: new Map([["u1", [passkey("p1", "u1")]]]) });
    expect(structuralViolations(only)).toEqual([]);
    const bare = snapshot({ users: new Map([["u1", user("u1")]]), passkeys: new Map([["u1", []]]) });
    expect(describeViolations(structuralViolations(bare))).toMatch(/I1: .*\nI14: /);
    const orphan = snapshot({
      users: new Map([["u1", null]]),
      passkeys: new Map([["u1", [passkey("p1", "u1")]]]),
      byCredential: new Map([["cred-p1", passkey("p1", "u1")]]),
    });
    expect(describeViolations(nothingOfDeletedUsers(orphan))).toMatch(
      /I2: deleted user u1 still has passkeys\nI2: passkey cred-p… of a deleted user u1/,
    );
  });

  it("I16: a session (counted or named) of a user banned without an end is a violation; a ban with an end is not checked", () => {
    const banned = { ...user("u1"), banned: true, banReason: null, banExpires: null };
    const s1 = {
      id: "s1",
      userId: "u1",
      tokenHash: "h",
      expiresAt: at,
      createdAt: at,
      updatedAt: at,
      ip: null,
      userAgent: null,
      rememberMe: true,
      impersonatedBy: null,
    };
    const counted = snapshot({ users: new Map([["u1", banned]]), sessionCounts: new Map([["u1", 1]]) });
    expect(describeViolations(noSessionOfBannedUser(counted))).toMatch(/I16: banned user u1 .* has 1 sessions/);
    const named = snapshot({
      users: new Map([["u1", banned]]),
      sessions: new Map([["tok123456", { session: s1, user: banned }]]),
    });
    expect(describeViolations(noSessionOfBannedUser(named))).toMatch(/I16: session tok123… of banned user u1/);
    const timed = { ...banned, banExpires: at };
    expect(
      noSessionOfBannedUser(snapshot({ users: new Map([["u1", timed]]), sessionCounts: new Map([["u1", 1]]) })),
    ).toEqual([]);
    expect(
      noSessionOfBannedUser(
        snapshot({ users: new Map([["u1", { ...banned, banned: false }]]), sessionCounts: new Map([["u1", 1]]) }),
      ),
    ).toEqual([]);
  });

  it("I17 and I18: an organization without an owner, and members of a deleted organization or user, are violations", () => {
    const org = { id: "o1", name: "Acme", slug: "acme", logo: null, metadata: {}, createdAt: at };
    const member = (userId: string, role: string) => ({
      id: `m-${userId}`,
      organizationId: "o1",
      userId,
      role,
      createdAt: at,
    });
    const owned = snapshot({
      users: new Map([["u1", user("u1")]]),
      organizations: new Map([["o1", { organization: org, members: [member("u1", "owner")], invitations: [] }]]),
    });
    expect([...everyOrganizationHasAnOwner(owned), ...noMemberOfDeleted(owned)]).toEqual([]);
    const ownerless = snapshot({
      organizations: new Map([["o1", { organization: org, members: [member("u1", "admin")], invitations: [] }]]),
    });
    expect(describeViolations(everyOrganizationHasAnOwner(ownerless))).toBe(
      "I17: organization o1 has no owner (members: admin)",
    );
    const leftovers = snapshot({
      users: new Map([["u2", null]]),
      organizations: new Map([["o1", { organization: null, members: [member("u1", "owner")], invitations: [] }]]),
      memberships: new Map([["u2", [member("u2", "member")]]]),
    });
    expect(describeViolations(noMemberOfDeleted(leftovers))).toBe(
      "I18: deleted organization o1 keeps 1 members, 0 invitations\nI18: deleted user u2 is still a member of o1",
    );
  });

  it("I14: a password-less credential row is no way to sign in; a password, a mailbox method or a provider is", () => {
    const ways = [
      account("a1", "u1", "credential", { passwordHash: "$argon2id$..." }),
      account("a2", "u1", "EMAIL_OTP"),
      account("a3", "u1", "github", { accountId: "42" }),
    ];
    for (const way of ways)
      expect(
        usersCanSignIn(snapshot({ users: new Map([["u1", user("u1")]]), accounts: new Map([["u1", [way]]]) })),
      ).toEqual([]);
    const none = snapshot({
      users: new Map([["u1", user("u1")]]),
      accounts: new Map([["u1", [account("a1", "u1", "credential")]]]),
    });
    expect(describeViolations(usersCanSignIn(none))).toMatch(/I14: user u1 .* has no way to sign in/);
  });

  it("I15: a provider subject held by two users, or found as another user's, is a violation", () => {
    const users = new Map([
      ["u1", user("u1")],
      ["u2", user("u2")],
    ]);
    const mine = account("a1", "u1", "github", { accountId: "42" });
    const twice = snapshot({
      users,
      accounts: new Map([
        ["u1", [mine]],
        ["u2", [account("a2", "u2", "github", { accountId: "42" })]],
      ]),
    });
    expect(describeViolations(oneUserPerProviderSubject(twice))).toMatch(/I15: github subject 42 is linked 2 times/);
    const elsewhere = snapshot({
      users,
      accounts: new Map([["u1", [mine]]]),
      bySubject: new Map([
        [subjectKey("github", "42"), { account: { ...mine, id: "a9", userId: "u2" }, user: user("u2") }],
      ]),
    });
    expect(describeViolations(oneUserPerProviderSubject(elsewhere))).toMatch(
      /I15: github subject 42 of user u1 is found as u2/,
    );
  });

  it("reads linked identities through the store: a linked user passes I14 and I15, and loses I14 without its way in", async () => {
    const store = memoryStore();
    expect((await store.users.create(user("u1"), [account("a1", "u1", "credential", { passwordHash: "x" })])).ok).toBe(
      true,
    );
    expect(await store.socialAccounts.link(account("a2", "u1", "github", { accountId: "42" }))).toBe("linked");
    const snap = await takeSnapshot(store, { userIds: ["u1"], providerSubjects: [["github", "42"]] });
    expect(snap.bySubject.get(subjectKey("github", "42"))?.user.id).toBe("u1");
    expect(structuralViolations(snap)).toEqual([]);
    await store.accounts.deleteAllExcept("u1", "credential");
    await store.accounts.upsertPassword("u1", account("a3", "u1", "credential"));
    const after = await takeSnapshot(store, { userIds: ["u1"], providerSubjects: [["github", "42"]] });
    expect(after.bySubject.get(subjectKey("github", "42"))).toBeNull();
    expect(describeViolations(structuralViolations(after))).toMatch(/I14/);
  });
});
