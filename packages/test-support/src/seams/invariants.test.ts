import { memoryStore } from "@latchkey/memory-store";
import { describe, expect, it } from "vitest";
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
import { emptySnapshot, subjectKey, takeSnapshot, type Snapshot } from "./snapshot.ts";
import { account, at } from "./toy-flows.ts";

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
  const snapshot = (over: Partial<Snapshot>): Snapshot => ({ ...emptySnapshot(), ...over });
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
