import { afterEach, describe, expect, it } from "vitest";
import {
  apiKeys,
  DEFAULT_ROLES,
  hashSecret,
  organizations,
  type OrganizationsOptions,
  type Permissions,
} from "@latchkey/core";
import { bearer, createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import { testStoreKind } from "../../../test/test-stores.ts";

// API keys owned by an organization (decision 0079) over HTTP on the run's store (memory, libSQL, PostgreSQL):
// who may create and list them, what a verify grants after the creator's role changes, and the organization's
// deletion taking them, each checked in the store. The lookup cache is on: a key it holds must not outlive any of it.

const opened: TestAuth[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((t) => t.auth.cache?.close()));
});

async function setup(options: OrganizationsOptions = {}) {
  const t = createTestAuth({ plugins: [organizations(options), apiKeys()], cache: {} });
  opened.push(t as TestAuth);
  // The cache is used only once its carrier heard its own probe (at once in process; LISTEN on PostgreSQL).
  for (let i = 0; i < 3000 && t.auth.cache?.stats().bypassed !== false; i++)
    await new Promise((resolve) => setTimeout(resolve, 5));
  const post = (path: string, body: unknown, token?: string) =>
    t.request("POST", path, { body, headers: token ? bearer(token) : {} });
  const get = (path: string, token?: string) => t.request("GET", path, { headers: token ? bearer(token) : {} });
  let n = 0;
  const person = (name: string) => t.signUp(`${name}-${n++}@example.com`);
  async function org(people: { owner: { userId: string }; admin?: { userId: string }; member?: { userId: string } }) {
    const created = await t.auth.api.createOrganization({
      userId: people.owner.userId,
      name: "Acme",
      slug: `o-${n++}`,
    });
    for (const role of ["admin", "member"] as const) {
      const who = people[role];
      if (who) await t.auth.api.addMember({ userId: who.userId, organizationId: created.id, role });
    }
    return created;
  }
  const orgKeys = async (organizationId: string) =>
    (await t.store.apiKeys.listByOrganization(organizationId, { limit: 100, cursor: null })).items;
  const verify = async (key: string, permissions?: Permissions) =>
    (await (await post("/api-key/verify", permissions ? { key, permissions } : { key })).json()) as {
      valid: boolean;
      apiKey?: { organizationId: string | null; permissions: Permissions };
      error?: { code: string };
    };
  return { t, post, get, person, org, orgKeys, verify };
}

type Actor = "owner" | "admin" | "member" | "outsider" | "signed-out";
const ACTORS: Actor[] = ["owner", "admin", "member", "outsider", "signed-out"];

/** What the default roles say `actor` gets from a route that needs `statement` of the organization. */
function expected(actor: Actor, statement: Permissions): number {
  if (actor === "signed-out") return 401;
  if (actor === "outsider") return 404;
  const granted = DEFAULT_ROLES[actor];
  const ok = Object.entries(statement).every(([resource, actions]) =>
    actions.every((a) => granted[resource]?.includes(a)),
  );
  return ok ? 200 : 403;
}

describe(`API keys of an organization over HTTP on ${testStoreKind()}`, () => {
  it("create and list by organization: the matrix of the default roles, and the store changed only when allowed", async () => {
    const s = await setup();
    const people = {
      owner: await s.person("owner"),
      admin: await s.person("admin"),
      member: await s.person("member"),
      outsider: await s.person("outsider"),
    };
    const failures: string[] = [];
    for (const actor of ACTORS) {
      const org = await s.org(people);
      const token = actor === "signed-out" ? undefined : people[actor].token;
      const created = await s.post("/api-key/create", { organizationId: org.id, name: "deploys" }, token);
      const want = expected(actor, { apiKey: ["create"] });
      const stored = await s.orgKeys(org.id);
      if (created.status !== want) failures.push(`create as ${actor}: ${created.status}, expected ${want}`);
      if (stored.length !== (want === 200 ? 1 : 0)) failures.push(`create as ${actor}: ${stored.length} keys stored`);
      if (want === 200 && stored[0]?.userId !== people[actor as "owner"].userId)
        failures.push(`create as ${actor}: the key's owner is not its creator`);
      // Someone allowed made one, so a reader sees it whoever made it.
      await s.t.auth.api.createApiKey({ userId: people.owner.userId, organizationId: org.id });
      const listed = await s.get(`/api-key/list?organizationId=${org.id}`, token);
      const canRead = expected(actor, { apiKey: ["read"] });
      if (listed.status !== canRead) failures.push(`list as ${actor}: ${listed.status}, expected ${canRead}`);
      if (canRead === 200) {
        const { apiKeys: page } = (await listed.json()) as { apiKeys: Array<{ id: string; organizationId: string }> };
        const ids = (await s.orgKeys(org.id)).map((k) => k.id);
        if (JSON.stringify(page.map((k) => k.id)) !== JSON.stringify(ids))
          failures.push(`list as ${actor}: answered other keys than the organization's`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("create: permissions within the creator's role only; bad input and a stranger's organization write nothing", async () => {
    const s = await setup({ roles: { admin: { project: ["read", "write"] }, member: { project: ["read"] } } });
    const owner = await s.person("owner");
    const admin = await s.person("admin");
    const org = await s.org({ owner, admin });
    const ok = await s.post(
      "/api-key/create",
      { organizationId: org.id, permissions: { project: ["write"] } },
      admin.token,
    );
    expect(ok.status).toBe(200);
    const { key, apiKey } = (await ok.json()) as { key: string; apiKey: { id: string; organizationId: string } };
    expect(apiKey.organizationId).toBe(org.id);
    expect(await s.t.store.apiKeys.findByHash(hashSecret(key))).toMatchObject({
      id: apiKey.id,
      userId: admin.userId,
      organizationId: org.id,
      permissions: { project: ["write"] },
    });
    const refused = [
      // A statement the admin role lacks, even with one it has.
      [
        { organizationId: org.id, permissions: { project: ["read"], billing: ["read"] } },
        403,
        "INSUFFICIENT_PERMISSIONS",
      ],
      [{ organizationId: org.id, permissions: { organization: ["delete"] } }, 403, "INSUFFICIENT_PERMISSIONS"],
      [{ organizationId: "no-such-organization" }, 404, "ORGANIZATION_NOT_FOUND"],
      [{ organizationId: 42 }, 400, "INVALID_REQUEST"],
      [{ organizationId: "" }, 400, "INVALID_REQUEST"],
    ] as const;
    for (const [body, status, code] of refused) {
      const res = await s.post("/api-key/create", body, admin.token);
      expect({ body, status: res.status, code: ((await res.json()) as { code: string }).code }).toEqual({
        body,
        status,
        code,
      });
    }
    // A user's own key keeps `grantablePermissions` (none by default), not the role's statements.
    expect((await s.post("/api-key/create", { permissions: { project: ["read"] } }, admin.token)).status).toBe(403);
    expect((await s.t.store.apiKeys.listByUser(admin.userId, { limit: 10, cursor: null })).items).toHaveLength(1);
  });

  it("verify caps the key by the creator's current role: a demotion, a removal, the organization's deletion", async () => {
    const s = await setup({ roles: { admin: { project: ["read", "write"] }, member: { project: ["read"] } } });
    const owner = await s.person("owner");
    const admin = await s.person("admin");
    const org = await s.org({ owner, admin });
    const made = await s.post(
      "/api-key/create",
      { organizationId: org.id, permissions: { project: ["read", "write"] } },
      admin.token,
    );
    const { key, apiKey } = (await made.json()) as { key: string; apiKey: { id: string } };
    expect(await s.verify(key, { project: ["write"] })).toMatchObject({
      valid: true,
      apiKey: { organizationId: org.id, permissions: { project: ["read", "write"] } },
    });
    // Demoted to member: the key keeps only what `member` grants, at once (the cache holds the key, not the role).
    const hits = s.t.auth.cache?.stats().hits ?? 0;
    const demoted = await s.post(
      "/organization/update-member-role",
      { organizationId: org.id, memberId: admin.userId, role: "member" },
      owner.token,
    );
    expect(demoted.status).toBe(200);
    expect(await s.verify(key, { project: ["write"] })).toMatchObject({
      valid: false,
      error: { code: "INSUFFICIENT_PERMISSIONS" },
    });
    expect(await s.verify(key)).toMatchObject({ valid: true, apiKey: { permissions: { project: ["read"] } } });
    expect(s.t.auth.cache?.stats().hits).toBeGreaterThan(hits);
    // The stored key is unchanged: the cap is the role's, read on every verify.
    expect((await s.t.store.apiKeys.findById(apiKey.id))?.permissions).toEqual({ project: ["read", "write"] });
    // Removed: the key verifies with no permissions.
    const removed = await s.post(
      "/organization/remove-member",
      { organizationId: org.id, memberIdOrEmail: admin.userId },
      owner.token,
    );
    expect(removed.status).toBe(200);
    expect(await s.verify(key)).toMatchObject({ valid: true, apiKey: { permissions: {} } });
    expect(await s.verify(key, { project: ["read"] })).toMatchObject({
      valid: false,
      error: { code: "INSUFFICIENT_PERMISSIONS" },
    });
    // The organization deleted: its keys are gone from the store, and a key the cache still holds is refused.
    const ownerKey = await s.t.auth.api.createApiKey({
      userId: owner.userId,
      organizationId: org.id,
      permissions: { project: ["read"] },
    });
    expect(await s.verify(ownerKey.key, { project: ["read"] })).toMatchObject({ valid: true });
    const before = s.t.auth.cache?.stats().hits ?? 0;
    expect((await s.post("/organization/delete", { organizationId: org.id }, owner.token)).status).toBe(200);
    expect(await s.t.store.apiKeys.findById(apiKey.id)).toBeNull();
    expect(await s.t.store.apiKeys.findById(ownerKey.apiKey.id)).toBeNull();
    expect(await s.verify(ownerKey.key)).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
    expect(await s.verify(key)).toMatchObject({ valid: false, error: { code: "INVALID_API_KEY" } });
    expect(s.t.auth.cache?.stats().hits).toBeGreaterThan(before);
  });
});
