import { describe, expect, it } from "vitest";
import { apiKeys, organizations, type FullStore } from "@latchkey/core";
import { exploreInterleavings, type ScheduleRun } from "@latchkey/test-support";
import {
  answer,
  answerOf,
  freshEmail,
  outcomes,
  PASSWORD,
  report,
  seamAuth,
  storeVariants,
  structural,
} from "../../test/seams/harness.ts";
import { bearer, type TestAuth } from "../../test/test-auth.ts";
import { testStoreKind } from "../../test/test-stores.ts";

// Organizations racing each other's flows (issue 46): an invitation's accept x the removal of the invitee, x the
// invitee's account deletion and x the organization's deletion; the last two owners' leave x demotion; a member's
// demotion x a verify of the organization API key they made (decision 0079). After each
// interleaving: the structural invariants, among them I17 (every organization has an owner) and I18 (no member of a
// deleted organization or of a deleted user).

/** Each world signs up two or three users: a smaller budget than the single-user pairs. */
const orgBudget = () =>
  testStoreKind() === "memory" ? { exhaustiveLimit: 150, samples: 50 } : { exhaustiveLimit: 60, samples: 20 };

const PAIR_TIMEOUT_MS = 120_000;

function orgAuth(store: FullStore) {
  return seamAuth(store, { plugins: [organizations()] }) as unknown as TestAuth<[ReturnType<typeof organizations>]>;
}

type OrgAuth = ReturnType<typeof orgAuth>;

/** A verified user (an invitee must have proven the address). */
async function person(t: OrgAuth, name: string) {
  const email = freshEmail(name);
  const { token, userId } = await t.signUp(email, PASSWORD);
  await t.store.users.update(userId, { emailVerified: true });
  return { email, token, userId };
}

/** An organization owned by a new user, with a pending invitation of a second one. */
async function invitedWorld(t: OrgAuth) {
  const owner = await person(t, "owner");
  const invitee = await person(t, "invitee");
  const org = await t.auth.api.createOrganization({
    userId: owner.userId,
    name: "Acme",
    slug: `acme-${freshEmail("s").replace(/[^a-z0-9]+/g, "-")}`.slice(0, 60),
  });
  const res = await t.request("POST", "/organization/invite-member", {
    body: { organizationId: org.id, email: invitee.email, role: "member" },
    headers: bearer(owner.token),
  });
  expect(res.status).toBe(200);
  const invitation = (await res.json()) as { id: string };
  return { t, owner, invitee, org, invitation };
}

const statusOf = (run: ScheduleRun<unknown>, flow: string) => answerOf(run, flow).status;
const post = (t: OrgAuth, path: string, body: unknown, token: string) =>
  answer(t.request("POST", path, { body, headers: bearer(token) }));

describe.each(storeVariants())("organizations at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

  it(
    "accept x removal of the invitee: removed after the accept, or nothing to remove and a member after",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...orgBudget(),
        setup: async (wrap) => invitedWorld(orgAuth(around(wrap(store)))),
        flows: ({ t, owner, invitee, org, invitation }) => ({
          accept: () => post(t, "/organization/accept-invitation", { invitationId: invitation.id }, invitee.token),
          remove: () =>
            post(
              t,
              "/organization/remove-member",
              { organizationId: org.id, memberIdOrEmail: invitee.email },
              owner.token,
            ),
        }),
        async check({ t, owner, invitee, org }, run) {
          expect(statusOf(run, "accept"), JSON.stringify(answerOf(run, "accept").body)).toBe(200);
          const snap = await structural(t, { userIds: [owner.userId, invitee.userId], organizationIds: [org.id] });
          const member = snap.organizations.get(org.id)!.members.find((m) => m.userId === invitee.userId);
          if (statusOf(run, "remove") === 200) {
            seen.add("removed after the accept");
            expect(member).toBeUndefined();
          } else {
            seen.add("nothing to remove yet");
            expect(statusOf(run, "remove")).toBe(404);
            expect(member?.role).toBe("member");
          }
        },
      });
      seen.expect("removed after the accept", "nothing to remove yet");
      report(`organization accept x remove${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "accept x the invitee's account deletion: no membership of the deleted user",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...orgBudget(),
        setup: async (wrap) => invitedWorld(orgAuth(around(wrap(store)))),
        flows: ({ t, invitee, invitation }) => ({
          accept: () => post(t, "/organization/accept-invitation", { invitationId: invitation.id }, invitee.token),
          delete: () => post(t, "/delete-account", { password: PASSWORD }, invitee.token),
        }),
        async check({ t, owner, invitee, org }, run) {
          expect(statusOf(run, "delete"), JSON.stringify(answerOf(run, "delete").body)).toBe(200);
          const accept = answerOf(run, "accept");
          // Refused cleanly when the deletion came first (the session or the user is gone), never a 500.
          expect([200, 401, 404], JSON.stringify(accept.body)).toContain(accept.status);
          seen.add(accept.status === 200 ? "accepted, then deleted" : "refused");
          const snap = await structural(t, { userIds: [owner.userId, invitee.userId], organizationIds: [org.id] });
          expect(snap.users.get(invitee.userId)).toBeNull();
          expect(snap.organizations.get(org.id)!.members.map((m) => m.userId)).toEqual([owner.userId]);
        },
      });
      seen.expect("accepted, then deleted", "refused");
      report(`organization accept x account deletion${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "accept x the organization's deletion: no member or invitation of the deleted organization",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...orgBudget(),
        setup: async (wrap) => invitedWorld(orgAuth(around(wrap(store)))),
        flows: ({ t, owner, invitee, org, invitation }) => ({
          accept: () => post(t, "/organization/accept-invitation", { invitationId: invitation.id }, invitee.token),
          delete: () => post(t, "/organization/delete", { organizationId: org.id }, owner.token),
        }),
        async check({ t, owner, invitee, org }, run) {
          expect(statusOf(run, "delete"), JSON.stringify(answerOf(run, "delete").body)).toBe(200);
          const accept = answerOf(run, "accept");
          expect([200, 404], JSON.stringify(accept.body)).toContain(accept.status);
          seen.add(accept.status === 200 ? "accepted, then deleted" : "refused");
          const snap = await structural(t, { userIds: [owner.userId, invitee.userId], organizationIds: [org.id] });
          expect(snap.organizations.get(org.id)).toEqual({ organization: null, members: [], invitations: [] });
          expect(snap.memberships.get(invitee.userId)).toEqual([]);
        },
      });
      seen.expect("accepted, then deleted", "refused");
      report(`organization accept x delete${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "the last two owners: one leaves while the other is demoted by them, and the organization keeps an owner",
    async () => {
      const seen = outcomes();
      const r = await exploreInterleavings({
        ...orgBudget(),
        async setup(wrap) {
          const t = orgAuth(around(wrap(store)));
          const a = await person(t, "a");
          const b = await person(t, "b");
          const org = await t.auth.api.createOrganization({
            userId: a.userId,
            name: "Acme",
            slug: `two-${freshEmail("s").replace(/[^a-z0-9]+/g, "-")}`.slice(0, 60),
          });
          await t.auth.api.addMember({ userId: b.userId, organizationId: org.id, role: "owner" });
          return { t, a, b, org };
        },
        flows: ({ t, a, b, org }) => ({
          leave: () => post(t, "/organization/leave", { organizationId: org.id }, a.token),
          demote: () =>
            post(
              t,
              "/organization/update-member-role",
              { organizationId: org.id, memberId: b.userId, role: "member" },
              a.token,
            ),
        }),
        async check({ t, a, b, org }, run) {
          const statuses = [statusOf(run, "leave"), statusOf(run, "demote")];
          const snap = await structural(t, { userIds: [a.userId, b.userId], organizationIds: [org.id] });
          const owners = snap.organizations.get(org.id)!.members.filter((m) => m.role === "owner");
          expect(owners).toHaveLength(1);
          if (statuses[0] === 200) {
            seen.add("left; the demotion found no such member or refused");
            expect(owners[0]!.userId).toBe(b.userId);
            expect([404, 409]).toContain(statuses[1]);
          } else {
            seen.add("demoted; the leave refused as the last owner");
            expect(statuses).toEqual([409, 200]);
            expect(owners[0]!.userId).toBe(a.userId);
          }
        },
      });
      seen.expect("left; the demotion found no such member or refused", "demoted; the leave refused as the last owner");
      report(`organization leave x demotion${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );

  it(
    "role change x a verify of the organization key the member made: after the demotion, never the old role's permissions",
    async () => {
      const seen = outcomes();
      const write = { project: ["write"] };
      const r = await exploreInterleavings({
        // 78 interleavings in all: every one on memory, about half on the SQL stores (CI time).
        ...(testStoreKind() === "memory" ? orgBudget() : { exhaustiveLimit: 30, samples: 10 }),
        async setup(wrap) {
          const t = seamAuth(around(wrap(store)), {
            plugins: [organizations({ roles: { admin: write } }), apiKeys()],
          }) as unknown as OrgAuth;
          const owner = await person(t, "owner");
          const admin = await person(t, "admin");
          const org = await t.auth.api.createOrganization({
            userId: owner.userId,
            name: "Acme",
            slug: `keys-${freshEmail("s").replace(/[^a-z0-9]+/g, "-")}`.slice(0, 60),
          });
          await t.auth.api.addMember({ userId: admin.userId, organizationId: org.id, role: "admin" });
          const res = await t.request("POST", "/api-key/create", {
            body: { organizationId: org.id, permissions: write },
            headers: bearer(admin.token),
          });
          expect(res.status).toBe(200);
          const { key } = (await res.json()) as { key: string };
          return { t, owner, admin, org, key };
        },
        flows: ({ t, owner, admin, org, key }) => ({
          demote: () =>
            post(
              t,
              "/organization/update-member-role",
              { organizationId: org.id, memberId: admin.userId, role: "member" },
              owner.token,
            ),
          verify: () => answer(t.request("POST", "/api-key/verify", { body: { key, permissions: write } })),
        }),
        async check({ t, owner, admin, org, key }, run) {
          expect(statusOf(run, "demote"), JSON.stringify(answerOf(run, "demote").body)).toBe(200);
          const during = answerOf(run, "verify").body as { valid: boolean; error?: { code: string } };
          // Concurrent with the demotion: the role before it (valid) or after it (refused), nothing else.
          if (during.valid) seen.add("verified with the old role, before the demotion landed");
          else {
            seen.add("refused with the new role");
            expect(during.error?.code).toBe("INSUFFICIENT_PERMISSIONS");
          }
          // The invariant: once the demotion answered, no verify grants what only the old role granted.
          const after = (await (
            await t.request("POST", "/api-key/verify", { body: { key, permissions: write } })
          ).json()) as { valid: boolean; error?: { code: string } };
          expect(after).toMatchObject({ valid: false, error: { code: "INSUFFICIENT_PERMISSIONS" } });
          const snap = await structural(t, { userIds: [owner.userId, admin.userId], organizationIds: [org.id] });
          expect(snap.organizations.get(org.id)!.members.find((m) => m.userId === admin.userId)?.role).toBe("member");
        },
      });
      seen.expect("verified with the old role, before the demotion landed", "refused with the new role");
      report(`organization demotion x api-key verify${name}`, r);
    },
    PAIR_TIMEOUT_MS,
  );
});
