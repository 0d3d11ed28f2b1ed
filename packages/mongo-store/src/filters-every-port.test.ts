import { describe, expect, it } from "vitest";
import { fixtures } from "@latchkey/store-conformance";
import { jwksPort } from "./jwks.ts";
import { auditPort } from "./audit.ts";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { countersPort } from "./counters.ts";
import { sessionsPort } from "./sessions.ts";
import { socialAccountsPort } from "./social-accounts.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";
import { twoFactorPort } from "./two-factor.ts";
import { passkeysPort } from "./passkeys.ts";
import { organizationsPort } from "./organizations.ts";
import { bareFields, HOSTILE, noTransactions, recordingCollections } from "./filter-recording.ts";

describe("MongoDB filters take caller values through $eq", () => {
  it("every method of every port: no caller value reaches a filter bare (a new method must join the table)", async () => {
    const { c, seen } = recordingCollections();
    const h = HOSTILE;
    const date = new Date(0);
    // One call per port method, each caller-supplied string (ids, hashes, identifiers, keys) replaced by the
    // hostile object, records included. The table must name every method the port has, so a method added later
    // fails here until its filters are checked too.
    const calls: Record<string, [port: object, Record<string, () => Promise<unknown>>]> = {};
    const users = usersPort(c, noTransactions);
    calls.users = [
      users,
      {
        create: () => users.create(fixtures.user({ id: h }), [fixtures.account(h, { id: h })]),
        findById: () => users.findById(h),
        findByEmail: () => users.findByEmail(h),
        findByUsername: () => users.findByUsername(h),
        update: () => users.update(h, { name: "x" }),
        delete: () => users.delete(h),
        listUnverifiedBefore: () => users.listUnverifiedBefore(date, 10),
        listPage: () => users.listPage({ search: { field: "email", prefix: h }, limit: 10, cursor: `e:${h}:${h}` }),
        count: () => users.count({ field: "name", prefix: h }),
      },
    ];
    const sessions = sessionsPort(c);
    calls.sessions = [
      sessions,
      {
        create: () => sessions.create(fixtures.session(h, { id: h, tokenHash: h })),
        findByTokenHash: () => sessions.findByTokenHash(h),
        listByUser: () => sessions.listByUser(h),
        touch: () => sessions.touch(h, date, date),
        delete: () => sessions.delete(h),
        deleteByUser: () => sessions.deleteByUser(h, h),
        deleteImpersonatedBy: () => sessions.deleteImpersonatedBy(h),
        deleteExpired: () => sessions.deleteExpired(date, 10),
      },
    ];
    const accounts = accountsPort(c);
    calls.accounts = [
      accounts,
      {
        listByUser: () => accounts.listByUser(h),
        create: () => accounts.create(fixtures.account(h, { id: h })),
        upsertPassword: () => accounts.upsertPassword(h, fixtures.account(h, { id: h })),
        setPasswordIfAbsent: () => accounts.setPasswordIfAbsent(h, fixtures.account(h, { id: h })),
        deleteAllExcept: () => accounts.deleteAllExcept(h, h),
      },
    ];
    const social = socialAccountsPort(c);
    calls.socialAccounts = [
      social,
      {
        findByProviderAccount: () => social.findByProviderAccount(h, h),
        link: () => social.link(fixtures.socialAccount(h, { id: h, accountId: h })),
        updateTokens: () =>
          social.updateTokens(h, {
            accessToken: null,
            refreshToken: null,
            idToken: null,
            accessTokenExpiresAt: null,
            refreshTokenExpiresAt: null,
            scope: null,
            updatedAt: date,
          }),
        unlink: () => social.unlink(h, h),
      },
    ];
    const verifications = verificationsPort(c);
    calls.verifications = [
      verifications,
      {
        issue: () => verifications.issue(fixtures.verification({ id: h, identifier: h, valueHash: h, userId: h })),
        findByIdentifier: () => verifications.findByIdentifier(h),
        findByValueHash: () => verifications.findByValueHash(h),
        consume: () => verifications.consume(h),
        recordFailedAttempt: () => verifications.recordFailedAttempt(h, 3),
        deleteByIdentifier: () => verifications.deleteByIdentifier(h),
        deleteExpired: () => verifications.deleteExpired(date, 10),
      },
    ];
    const counters = countersPort(c);
    calls.counters = [
      counters,
      {
        hit: () => counters.hit(h, 1000, 0).catch(() => null),
        hitGated: () =>
          counters.hitGated!({ key: h, windowMs: 1000, max: 1 }, { key: h, windowMs: 1000 }, 0).catch(() => null),
        peek: () => counters.peek(h, 0),
        peekMany: () => counters.peekMany!([h], 0),
        delete: () => counters.delete(h),
        rename: () => counters.rename(h, h),
        deleteExpired: () => counters.deleteExpired(0, 10),
      },
    ];
    const keys = apiKeysPort(c);
    calls.apiKeys = [
      keys,
      {
        create: () => keys.create(fixtures.apiKey(h, { id: h, keyHash: h, organizationId: h }), { maxPerUser: 1 }),
        findByHash: () => keys.findByHash(h),
        findByHashWithOwner: () => keys.findByHashWithOwner(h),
        findById: () => keys.findById(h),
        listByUser: () => keys.listByUser(h, { limit: 10, cursor: null }),
        listByOrganization: () => keys.listByOrganization(h, { limit: 10, cursor: null }),
        update: () => keys.update(h, h, { name: "x" }, { unlessLocked: true }),
        reroll: () => keys.reroll(h, h, { keyHash: h, start: "lk_", graceUntil: date, at: date }),
        deleteExpiredRerolls: () => keys.deleteExpiredRerolls(date, 10),
        touchLastUsed: () => keys.touchLastUsed(h, date, 1000),
        delete: () => keys.delete(h, h),
        deleteExpired: () => keys.deleteExpired(date, h, 10),
        consumeUse: () => keys.consumeUse(h, date),
      },
    ];
    const jwks = jwksPort(c);
    calls.jwks = [
      jwks,
      {
        list: () => jwks.list(),
        insert: () =>
          jwks.insert({
            id: h,
            generation: 1,
            alg: "EdDSA",
            publicKey: "{}",
            privateKey: "{}",
            createdAt: date,
            retiredAt: null,
          }),
        retireOthers: () => jwks.retireOthers(h, date),
        deleteRetiredBefore: () => jwks.deleteRetiredBefore(date),
      },
    ];
    const audit = auditPort(c);
    calls.audit = [
      audit,
      {
        append: () =>
          audit.append({
            id: h,
            type: "SignIn",
            userId: h,
            identifier: h,
            ip: null,
            userAgent: null,
            at: date,
            data: {},
          }),
        list: () => audit.list({ userId: h, limit: 10, cursor: null }),
        deleteBefore: () => audit.deleteBefore(date, 10),
      },
    ];
    const twoFactor = twoFactorPort(c);
    const record = {
      userId: h,
      secret: h,
      enabled: false,
      lastStep: null,
      recoveryCodes: [h],
      trustedAfter: null,
      createdAt: date,
      updatedAt: date,
    };
    // The fake collections answer null where MongoDB answers a result: a port reading the result may throw,
    // after its filter was recorded.
    calls.twoFactor = [
      twoFactor,
      {
        find: () => twoFactor.find(h),
        savePending: () => twoFactor.savePending(record).catch(() => null),
        acceptStep: () => twoFactor.acceptStep(h, h, 1, date, { enable: true }).catch(() => null),
        useRecoveryCode: () => twoFactor.useRecoveryCode(h, h, date).catch(() => null),
        replaceRecoveryCodes: () => twoFactor.replaceRecoveryCodes(h, [h], date).catch(() => null),
        distrustDevices: () => twoFactor.distrustDevices(h, date).catch(() => null),
        delete: () => twoFactor.delete(h),
      },
    ];
    const passkeys = passkeysPort(c);
    const passkey = {
      id: h,
      userId: h,
      credentialId: h,
      publicKey: h,
      counter: 0,
      transports: [],
      deviceType: "singleDevice" as const,
      backedUp: false,
      aaguid: h,
      name: null,
      createdAt: date,
      lastUsedAt: null,
    };
    calls.passkeys = [
      passkeys,
      {
        insert: () => passkeys.insert(passkey).catch(() => null),
        listByUser: () => passkeys.listByUser(h),
        findByCredentialId: () => passkeys.findByCredentialId(h),
        rename: () => passkeys.rename(h, h, h),
        recordUse: () => passkeys.recordUse(h, 0, 1, false, date).catch(() => null),
        delete: () => passkeys.delete(h, h),
        deleteAllByUser: () => passkeys.deleteAllByUser(h),
      },
    ];
    const organizations = organizationsPort(c);
    const org = { id: h, name: h, slug: h, logo: null, metadata: {}, createdAt: date };
    const membership = { id: h, organizationId: h, userId: h, role: "owner", createdAt: date };
    const invite = {
      id: h,
      organizationId: h,
      email: h,
      role: "member",
      inviterId: h,
      status: "pending" as const,
      expiresAt: date,
      createdAt: date,
    };
    calls.organizations = [
      organizations,
      {
        create: () => organizations.create(org, membership).catch(() => null),
        findById: () => organizations.findById(h),
        findBySlug: () => organizations.findBySlug(h),
        update: () => organizations.update(h, { name: h }).catch(() => null),
        delete: () => organizations.delete(h),
        listByUser: () => organizations.listByUser(h),
        findMember: () => organizations.findMember(h, h),
        listMembers: () => organizations.listMembers(h),
        addMember: () => organizations.addMember(membership, 3).catch(() => null),
        updateMemberRole: () => organizations.updateMemberRole(h, h, "member").catch(() => null),
        removeMember: () => organizations.removeMember(h, h).catch(() => null),
        createInvitation: () => organizations.createInvitation(invite).catch(() => null),
        findInvitation: () => organizations.findInvitation(h),
        findPendingInvitation: () => organizations.findPendingInvitation(h, h),
        renewInvitation: () => organizations.renewInvitation(h, date),
        listInvitations: () => organizations.listInvitations(h),
        listInvitationsByEmail: () => organizations.listInvitationsByEmail(h),
        acceptInvitation: () =>
          organizations.acceptInvitation(h, { memberId: h, userId: h, email: h, at: date }, 3).catch(() => null),
        settleInvitation: () => organizations.settleInvitation(h, "canceled"),
        setActive: () => organizations.setActive(h, h, h).catch(() => null),
      },
    ];
    const missing: string[] = [];
    const bare: string[] = [];
    for (const [name, [port, table]] of Object.entries(calls)) {
      const methods = Object.keys(port).filter((m) => typeof (port as Record<string, unknown>)[m] === "function");
      missing.push(...methods.filter((m) => !(m in table)).map((m) => `${name}.${m}`));
      for (const [method, call] of Object.entries(table)) {
        const from = seen.length;
        await call();
        bare.push(
          ...seen
            .slice(from)
            .flatMap((r) => bareFields(r.filter).map((f) => `${name}.${method}: ${r.collection}.${r.method} ${f}`)),
        );
      }
    }
    expect(missing).toEqual([]);
    expect(bare).toEqual([]);
    // The paths of issue 50 item 7 are among those walked.
    expect(seen.find((r) => r.collection === "sessions" && r.method === "find")?.filter).toEqual({
      userId: { $eq: HOSTILE },
    });
  });
});
