import type { OrganizationService, ValidatedSession } from "@latchkey/core";
import type { AuthApp } from "../define.ts";
import type { RequestTools } from "../../middleware/session.ts";

// What every `/organization/*` route module shares: the sentences of its descriptions and how it reads the
// organization a request names.

export const NOT_MEMBER =
  "An organization the caller is not a member of answers 404 `ORGANIZATION_NOT_FOUND` (whether or not it exists).";

/** The organization a request names, or the session's active one. */
export const orgOf = (given: string | undefined, session: ValidatedSession): string =>
  given ?? session.sessionRecord.activeOrganizationId ?? "";

/** The description's sentence of what a route needs, with the roles that hold it under the configured definitions. */
export function required(service: OrganizationService, statement: string): string {
  const holders = service.roleNames.filter((role) => {
    const [resource, action] = statement.split(":") as [string, string];
    return service.statementsOf(role)[resource]?.includes(action) === true;
  });
  return `Needs \`${statement}\` (here: ${holders.map((r) => `\`${r}\``).join(", ") || "no role"}; 403 \`INSUFFICIENT_PERMISSIONS\` otherwise).`;
}

export type Register = (app: AuthApp, tools: RequestTools, service: OrganizationService) => void;
