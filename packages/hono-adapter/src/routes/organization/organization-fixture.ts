// The organization route tests' shared setup: a test auth with organizations(), jwt() and auditLog(), and helpers.
import {
  auditLog,
  jwt,
  organizations,
  ORGANIZATIONS_PLUGIN_ID,
  type AuthEvent,
  type OrganizationsOptions,
} from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

export async function setup(options: OrganizationsOptions = {}) {
  const t = createTestAuth({ plugins: [organizations(options), jwt(), auditLog()] });
  const events: AuthEvent[] = [];
  t.auth.events.onAny((e) => void events.push(e));
  const post = (path: string, body: unknown, token?: string) =>
    t.request("POST", path, { body, headers: token ? bearer(token) : {} });
  const get = (path: string, token?: string) => t.request("GET", path, { headers: token ? bearer(token) : {} });
  const json = async <T = Record<string, unknown>>(res: Response) => (await res.json()) as T;
  let n = 0;
  /** A signed-up user whose email is verified (an invitee must have proven the address). */
  async function person(name: string) {
    const email = `${name}-${n++}@example.com`;
    const who = await t.signUp(email);
    await t.store.users.update(who.userId, { emailVerified: true });
    return { ...who, email };
  }
  /** A new organization: `owner` owns it, `admin` and `member` hold those roles. */
  async function org(people: { owner: { userId: string }; admin?: { userId: string }; member?: { userId: string } }) {
    const slug = `org-${n++}`;
    const created = await t.auth.api.createOrganization({ userId: people.owner.userId, name: "Acme", slug });
    for (const role of ["admin", "member"] as const) {
      const who = people[role];
      if (who) await t.auth.api.addMember({ userId: who.userId, organizationId: created.id, role });
    }
    return created;
  }
  const memberOf = (organizationId: string, userId: string) => t.store.organizations.findMember(organizationId, userId);
  const service = t.auth.core.plugins.get(ORGANIZATIONS_PLUGIN_ID)!.service;
  return { t, events, post, get, json, person, org, memberOf, service };
}

export type Setup = Awaited<ReturnType<typeof setup>>;
export type People = Record<"owner" | "admin" | "member" | "outsider", Awaited<ReturnType<Setup["person"]>>>;
