import { describe, expect, it } from "vitest";
import { apiKeys, organizations } from "@latchkey/core";
import { exploreInterleavings } from "@latchkey/test-support";
import {
  answer,
  answerOf,
  freshEmail,
  outcomes,
  report,
  seamAuth,
  storeVariants,
  structural,
} from "../../test/seams/harness.ts";
import { bearer } from "../../test/test-auth.ts";
import { testStoreKind } from "../../test/test-stores.ts";
import {
  orgAuth,
  orgBudget,
  PAIR_TIMEOUT_MS,
  person,
  post,
  statusOf,
  type OrgAuth,
} from "../../test/seams/organization-fixture.ts";

// Role changes racing the organizations' other flows (issue 46): the last two owners' leave x demotion; a member's
// demotion x a verify of the organization API key they made (decision 0079). After each interleaving: the
// structural invariants, among them I17 (every organization has an owner) and I18 (no member of a deleted
// organization or of a deleted user).

describe.each(storeVariants())("organizations at the seams, every interleaving$name", ({ name, base, around }) => {
  const store = base();

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
