import { describe, expect, it } from "vitest";
import { exploreInterleavings } from "@latchkey/test-support";
import { answerOf, outcomes, PASSWORD, report, storeVariants, structural } from "../../test/seams/harness.ts";
import {
  invitedWorld,
  orgAuth,
  orgBudget,
  PAIR_TIMEOUT_MS,
  post,
  statusOf,
} from "../../test/seams/organization-fixture.ts";

// An invitation's accept racing the organizations' other flows (issue 46): x the removal of the invitee, x the
// invitee's account deletion and x the organization's deletion. After each interleaving: the structural invariants,
// among them I17 (every organization has an owner) and I18 (no member of a deleted organization or of a deleted
// user).

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
});
