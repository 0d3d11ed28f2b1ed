import { describe } from "vitest";
import type { Store } from "@latchkey/core";
import { registerOrganizationCascadeCases } from "./organization-cascades.ts";
import { registerOrganizationInvitationCases } from "./organization-invitations.ts";
import { registerOrganizationMemberCases } from "./organization-members.ts";
import { registerOrganizationRecordCases } from "./organization-records.ts";

/** Conformance of the `organizations` port (organizations, members, invitations); registered by `runStoreConformance`. */
export function describeOrganizations(getStore: () => Store): void {
  describe("organizations", () => {
    registerOrganizationRecordCases(getStore);
    registerOrganizationMemberCases(getStore);
    registerOrganizationInvitationCases(getStore);
    registerOrganizationCascadeCases(getStore);
  });
}
