import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { member, organization, uid } from "./fixtures.ts";
import { organizationHelpers } from "./organization-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `organizations` cases: create with the owner, lookups, the slug's uniqueness, update. */
export function registerOrganizationRecordCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const { newUser, orgWith } = organizationHelpers(() => store);

  it("creates an organization with its owner, round-tripping every field; finds by id, slug, user and member", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner, ownerRow, others } = await orgWith(port, "admin");
    expect(await port.findById(org.id)).toEqual(org);
    expect(await port.findBySlug(org.slug)).toEqual(org);
    expect(await port.findById(uid("org"))).toBeNull();
    expect(await port.findBySlug("no-such-slug-anywhere")).toBeNull();
    expect(await port.listByUser(owner.id)).toEqual([{ organization: org, member: ownerRow }]);
    expect(await port.findMember(org.id, owner.id)).toEqual(ownerRow);
    expect(await port.findMember(org.id, uid("u"))).toBeNull();
    const listed = await port.listMembers(org.id);
    expect(listed.map(({ member }) => member)).toEqual([ownerRow, others[0]!.member]);
    expect(listed.map(({ user }) => user.id)).toEqual([owner.id, others[0]!.user.id]);
  });

  it("a slug belongs to one organization: 8 parallel creates give one; a missing owner writes nothing", async (context) => {
    const port = portOf(store, "organizations", context);
    const users = [];
    for (let i = 0; i < 8; i++) users.push(await newUser());
    const slug = `s-${uid("x")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")}`;
    const results = await Promise.all(
      users.map((u) => {
        const org = organization({ slug });
        return port.create(org, member(org.id, u.id, { role: "owner" }));
      }),
    );
    expect(results.filter((r) => r === "created")).toHaveLength(1);
    expect(results.filter((r) => r === "slug-taken")).toHaveLength(7);
    const memberships = await Promise.all(users.map((u) => port.listByUser(u.id)));
    expect(memberships.flat()).toHaveLength(1);
    const ghost = organization();
    expect(await port.create(ghost, member(ghost.id, uid("u"), { role: "owner" }))).toBe("owner-gone");
    expect(await port.findById(ghost.id)).toBeNull();
  });

  it("update: changes the given fields; slug-taken against another organization; null when gone", async (context) => {
    const port = portOf(store, "organizations", context);
    const a = await orgWith(port);
    const b = await orgWith(port);
    const updated = await port.update(a.org.id, {
      name: "Renamed",
      logo: "https://cdn.example/logo.png",
      metadata: { x: 1 },
    });
    expect(updated).toEqual({ ...a.org, name: "Renamed", logo: "https://cdn.example/logo.png", metadata: { x: 1 } });
    expect(await port.update(a.org.id, { slug: b.org.slug })).toBe("slug-taken");
    expect((await port.findById(a.org.id))?.slug).toBe(a.org.slug);
    expect(await port.update(a.org.id, { slug: `${a.org.slug}-2` })).toMatchObject({ slug: `${a.org.slug}-2` });
    expect(await port.update(uid("org"), { name: "x" })).toBeNull();
  });
}
