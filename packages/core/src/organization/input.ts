import { AuthError, invalidField } from "../errors/errors.ts";
import type { JsonObject, Permissions } from "../ports/records.ts";
import { checkStatements } from "./roles.ts";

/** `POST /organization/create`. */
export interface CreateOrganizationInput {
  name: string;
  slug: string;
  logo?: string | null;
  metadata?: JsonObject;
}

/** `POST /organization/update`: the fields to change under `data`. */
export interface UpdateOrganizationInput {
  organizationId: string;
  data: { name?: string; slug?: string; logo?: string | null; metadata?: JsonObject };
}

/** `POST /organization/invite-member`. `resend`: send a pending invitation of this address again (new expiry). */
export interface InviteMemberInput {
  organizationId: string;
  email: string;
  role: string;
  resend?: boolean;
}

/** An organization named by id or by slug. */
export interface OrganizationRef {
  organizationId?: string | null;
  organizationSlug?: string | null;
}

export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
const MAX_METADATA_BYTES = 8 * 1024;

export function checkName(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "" || value.length > 128)
    throw invalidField(field, `${field} must be a non-empty string of at most 128 characters`);
  return value.trim();
}

export function checkSlug(value: unknown, field: string): string {
  if (typeof value !== "string" || !SLUG.test(value))
    throw invalidField(field, `${field} must be 1 to 64 lower-case letters, digits and dashes (not at either end)`);
  return value;
}

export function checkLogo(value: unknown, field: string): string | null {
  if (value === null) return null;
  if (typeof value !== "string" || value.length > 2048)
    throw invalidField(field, `${field} must be a URL of at most 2048 characters, or null`);
  return value;
}

export function checkMetadata(value: unknown, field: string): JsonObject {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw invalidField(field, `${field} must be an object`);
  if (new TextEncoder().encode(JSON.stringify(value)).length > MAX_METADATA_BYTES)
    throw invalidField(field, `${field} must be at most 8 KB of JSON`);
  return structuredClone(value as JsonObject);
}

/** `permissions` of a request: `{ resource: [actions] }`, 400 otherwise. */
export function checkStatementsInput(permissions: unknown): asserts permissions is Permissions {
  try {
    checkStatements(permissions, "permissions");
  } catch {
    throw invalidField("permissions", "permissions must be an object of resource -> [actions]");
  }
  if (Object.keys(permissions as object).length === 0)
    throw invalidField("permissions", "permissions must name at least one resource");
}

/** A hook's value that fails the route's own checks is a hook bug: 500 without the details. */
export function checkHookValue<T>(check: () => T): T {
  try {
    return check();
  } catch {
    throw new AuthError("INTERNAL_ERROR", "The beforeOrganizationCreated hook returned an invalid value");
  }
}
