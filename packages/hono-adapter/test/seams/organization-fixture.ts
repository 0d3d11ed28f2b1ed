import { expect } from "vitest";
import { organizations, type FullStore } from "@latchkey/core";
import type { ScheduleRun } from "@latchkey/test-support";
import { answer, answerOf, freshEmail, PASSWORD, seamAuth } from "./harness.ts";
import { bearer, type TestAuth } from "../test-auth.ts";
import { testStoreKind } from "../test-stores.ts";

// The worlds of the organization pairs (organization-invitations.test.ts, organization-roles.test.ts): users,
// an organization, a pending invitation. Nothing here keeps state between calls.

/** Each world signs up two or three users: a smaller budget than the single-user pairs. */
export const orgBudget = () =>
  testStoreKind() === "memory" ? { exhaustiveLimit: 150, samples: 50 } : { exhaustiveLimit: 60, samples: 20 };

export const PAIR_TIMEOUT_MS = 120_000;

export function orgAuth(store: FullStore) {
  return seamAuth(store, { plugins: [organizations()] }) as unknown as TestAuth<[ReturnType<typeof organizations>]>;
}

export type OrgAuth = ReturnType<typeof orgAuth>;

/** A verified user (an invitee must have proven the address). */
export async function person(t: OrgAuth, name: string) {
  const email = freshEmail(name);
  const { token, userId } = await t.signUp(email, PASSWORD);
  await t.store.users.update(userId, { emailVerified: true });
  return { email, token, userId };
}

/** An organization owned by a new user, with a pending invitation of a second one. */
export async function invitedWorld(t: OrgAuth) {
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

export const statusOf = (run: ScheduleRun<unknown>, flow: string) => answerOf(run, flow).status;
export const post = (t: OrgAuth, path: string, body: unknown, token: string) =>
  answer(t.request("POST", path, { body, headers: bearer(token) }));
