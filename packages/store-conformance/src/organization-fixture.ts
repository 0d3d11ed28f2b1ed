import { expect } from "vitest";
import type { OrganizationStore, Store } from "@latchkey/core";
import { at, member, organization, user } from "./fixtures.ts";

/** The helpers of the `organizations` cases, over the store `getStore` answers once the suite has started. */
export function organizationHelpers(getStore: () => Store) {
  const newUser = async () => {
    const u = user();
    expect((await getStore().users.create(u, [])).ok).toBe(true);
    return u;
  };

  /** An organization owned by a new user; more members with the given roles. */
  async function orgWith(port: OrganizationStore, ...roles: string[]) {
    const owner = await newUser();
    const org = organization();
    const ownerRow = member(org.id, owner.id, { role: "owner" });
    expect(await port.create(org, ownerRow)).toBe("created");
    const others = [];
    for (const [i, role] of roles.entries()) {
      const u = await newUser();
      const row = member(org.id, u.id, { role, createdAt: at(1_000 * (i + 1)) });
      expect(await port.addMember(row, null)).toBe("added");
      others.push({ user: u, member: row });
    }
    return { org, owner, ownerRow, others };
  }

  const owners = async (port: OrganizationStore, organizationId: string) =>
    (await port.listMembers(organizationId)).filter(({ member }) => member.role === "owner").length;

  return { newUser, orgWith, owners };
}
