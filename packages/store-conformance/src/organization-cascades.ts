import { beforeAll, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { apiKey, at, invitation, member, session, uid } from "./fixtures.ts";
import { organizationHelpers } from "./organization-fixture.ts";
import { portOf } from "./plugin-ports.ts";

/** `organizations` cases: the active organization of a session, and what an organization's or a user's deletion takes. */
export function registerOrganizationCascadeCases(getStore: () => Store): void {
  let store: Store;
  beforeAll(() => {
    store = getStore();
  });
  const { newUser, orgWith, owners } = organizationHelpers(() => store);

  it("setActive: only a member's own session; null clears; the session lookup reads it", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner } = await orgWith(port);
    const stranger = await newUser();
    const mine = session(owner.id);
    const theirs = session(stranger.id);
    expect(await store.sessions.create(mine)).toBe(true);
    expect(await store.sessions.create(theirs)).toBe(true);
    expect(await port.setActive(mine.id, owner.id, org.id)).toBe(true);
    expect((await store.sessions.findByTokenHash(mine.tokenHash))?.session.activeOrganizationId).toBe(org.id);
    expect(await port.setActive(theirs.id, stranger.id, org.id)).toBe(false);
    expect(await port.setActive(theirs.id, owner.id, org.id)).toBe(false);
    expect((await store.sessions.findByTokenHash(theirs.tokenHash))?.session.activeOrganizationId ?? null).toBeNull();
    expect(await port.setActive(mine.id, owner.id, null)).toBe(true);
    expect((await store.sessions.findByTokenHash(mine.tokenHash))?.session.activeOrganizationId ?? null).toBeNull();
  });

  it("delete takes the members and invitations and clears the organization from active sessions", async (context) => {
    const port = portOf(store, "organizations", context);
    const { org, owner, others } = await orgWith(port, "admin");
    const inv = invitation(org.id, owner.id);
    await port.createInvitation(inv);
    const s = session(owner.id);
    await store.sessions.create(s);
    await port.setActive(s.id, owner.id, org.id);
    expect(await port.delete(org.id)).toBe(true);
    expect(await port.delete(org.id)).toBe(false);
    expect(await port.findById(org.id)).toBeNull();
    expect(await port.listMembers(org.id)).toEqual([]);
    expect(await port.findMember(org.id, others[0]!.user.id)).toBeNull();
    expect(await port.findInvitation(inv.id)).toBeNull();
    expect(await port.listByUser(owner.id)).toEqual([]);
    expect((await store.sessions.findByTokenHash(s.tokenHash))?.session.activeOrganizationId ?? null).toBeNull();
  });

  it("a user's deletion takes their memberships, and the organizations they were the only owner of", async (context) => {
    const port = portOf(store, "organizations", context);
    const sole = await orgWith(port, "admin");
    const shared = await orgWith(port, "owner");
    const leaving = sole.owner;
    expect(await port.addMember(member(shared.org.id, leaving.id, { role: "owner" }), null)).toBe("added");
    const inv = invitation(sole.org.id, leaving.id);
    await port.createInvitation(inv);
    expect(await store.users.delete(leaving.id)).toBe(true);
    expect(await port.findById(sole.org.id)).toBeNull();
    expect(await port.findMember(sole.org.id, sole.others[0]!.user.id)).toBeNull();
    expect(await port.findInvitation(inv.id)).toBeNull();
    expect(await port.findById(shared.org.id)).toEqual(shared.org);
    expect(await port.findMember(shared.org.id, leaving.id)).toBeNull();
    expect(await owners(port, shared.org.id)).toBe(2);
    expect(await port.listByUser(leaving.id)).toEqual([]);
  });

  it("an organization's API keys: only for a member, listed newest first, gone with the organization (also under 8 racing creates)", async (context) => {
    const keys = portOf(store, "apiKeys", context);
    const port = portOf(store, "organizations", context);
    const { org, owner, others } = await orgWith(port, "admin");
    const admin = others[0]!.user;
    const own = apiKey(owner.id);
    const first = apiKey(owner.id, { organizationId: org.id, createdAt: at(1_000), updatedAt: at(1_000) });
    const second = apiKey(admin.id, { organizationId: org.id, createdAt: at(2_000), updatedAt: at(2_000) });
    for (const k of [own, first, second]) expect(await keys.create(k, { maxPerUser: 10 })).toBe(true);
    expect(await keys.findById(first.id)).toEqual(first);
    // Not a member, or no such organization: nothing written (with and without a cap).
    const outsider = await newUser();
    const stray = apiKey(outsider.id, { organizationId: org.id });
    expect(await keys.create(stray)).toBe("organization-gone");
    const nowhere = apiKey(owner.id, { organizationId: uid("org") });
    expect(await keys.create(nowhere, { maxPerUser: 10 })).toBe("organization-gone");
    expect(await keys.findById(stray.id)).toBeNull();
    expect(await keys.findById(nowhere.id)).toBeNull();
    const page = await keys.listByOrganization(org.id, { limit: 1, cursor: null });
    expect(page.items).toEqual([second]);
    const rest = await keys.listByOrganization(org.id, { limit: 5, cursor: page.nextCursor });
    expect(rest).toEqual({ items: [first], nextCursor: null });
    expect((await keys.listByUser(owner.id, { limit: 10, cursor: null })).items.map((k) => k.id).sort()).toEqual(
      [own.id, first.id].sort(),
    );
    // Deleting the organization takes its keys, whoever made them; the members' own keys stay.
    expect(await port.delete(org.id)).toBe(true);
    expect(await keys.findById(first.id)).toBeNull();
    expect(await keys.findById(second.id)).toBeNull();
    expect(await keys.findByHashWithOwner(second.keyHash)).toBeNull();
    expect(await keys.findById(own.id)).toEqual(own);
    expect((await keys.listByOrganization(org.id, { limit: 5, cursor: null })).items).toEqual([]);
    // Creates racing the deletion: each is refused or taken with the organization, never left behind.
    const racing = await orgWith(port, "admin");
    const drafts = Array.from({ length: 8 }, (_, i) =>
      apiKey(i % 2 ? racing.owner.id : racing.others[0]!.user.id, { organizationId: racing.org.id }),
    );
    const [deleted] = await Promise.all([port.delete(racing.org.id), ...drafts.map((k) => keys.create(k))]);
    expect(deleted).toBe(true);
    for (const k of drafts) expect(await keys.findById(k.id)).toBeNull();
    // A user's deletion that takes a sole-owned organization takes the keys its other members made for it.
    const sole = await orgWith(port, "admin");
    const theirs = apiKey(sole.others[0]!.user.id, { organizationId: sole.org.id });
    expect(await keys.create(theirs)).toBe(true);
    expect(await store.users.delete(sole.owner.id)).toBe(true);
    expect(await keys.findById(theirs.id)).toBeNull();
  });
}
