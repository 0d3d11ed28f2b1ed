import { describe, expect, it } from "vitest";
import { organizations } from "@latchkey/core";
import { createAuth } from "@latchkey/hono-adapter";
import { memoryStore } from "@latchkey/memory-store";
import { createLatchkeyClient } from "./index.ts";

const BASE = "https://app.example";

describe("the typed client's organization calls", () => {
  it("create, set active (the session store refetches), get the full organization, check a permission", async () => {
    const store = memoryStore();
    const auth = createAuth({
      secret: "client-organizations-0123456789abcdefghijklmnopqrstuvwxyz",
      baseUrl: BASE,
      database: store,
      getClientIp: () => "192.0.2.31",
      plugins: [organizations()],
    });
    const client = createLatchkeyClient({ baseURL: `${BASE}/auth`, auth: "bearer", fetch: (r) => auth.handler(r) });
    await client.signUpEmail({ email: "ada@example.com", password: "correct horse battery" });
    const created = await client.createOrganization({ name: "Acme", slug: "acme" });
    expect(created.error).toBeNull();
    const id = created.data!.id;
    expect((await client.getSession()).data?.session.activeOrganizationId).toBe(id);
    const full = await client.getFullOrganization({ organizationId: id });
    expect(full.data?.members.map((m) => m.role)).toEqual(["owner"]);
    const allowed = await client.hasPermission({ organizationId: id, permissions: { organization: ["delete"] } });
    expect(allowed.data).toEqual({ success: true });
    const cleared = await client.setActiveOrganization({ organizationId: null });
    expect(cleared.data).toBeNull();
    expect((await client.getSession()).data?.session.activeOrganizationId).toBeUndefined();
    const refused = await client.leaveOrganization({ organizationId: id });
    expect(refused.error?.code).toBe("LAST_OWNER");
    const ada = (await store.users.findByEmail("ada@example.com"))!;
    expect(await store.organizations.findMember(id, ada.id)).toMatchObject({ role: "owner" });
  });
});
