import { AuthError } from "../errors/errors.ts";
import type { ApiKeyPatch } from "../ports/store.ts";
import { hasPermissions } from "./permissions.ts";
import { toApiKeyView, type ApiKeyView } from "./view.ts";
import {
  assertKnownFields,
  assertNoServerOnlyFields,
  checkCount,
  checkEnabled,
  checkExpiresIn,
  checkMetadata,
  checkName,
  checkPermissions,
  checkRateLimitWindow,
  checkRefillInterval,
  invalidInput,
  resolveRateLimit,
  resolveRefill,
} from "./input.ts";
import type { CallerUpdateApiKeyInput, UpdateApiKeyInput } from "./types.ts";
import { assertPermissionsFor, ownedKey, type ApiKeyDeps } from "./ownership.ts";

/** What an HTTP caller may send to update a key; anything else is refused, never ignored. */
const CALLER_UPDATE_FIELDS = ["keyId", "name", "enabled", "metadata", "permissions"] as const;

/** Trusted update: also quota, rate limit and lifetime; `userId` (optional) scopes it to one owner. */
export async function updateApiKey(deps: ApiKeyDeps, input: UpdateApiKeyInput): Promise<{ apiKey: ApiKeyView }> {
  const owner = input.userId ?? null;
  const patch = basePatch(input);
  // Trusted code's enabled flag is an operator's decision: false locks the key against its owner, true unlocks.
  if (patch.enabled !== undefined) patch.locked = !patch.enabled;
  if (input.serverMetadata !== undefined) patch.serverMetadata = checkMetadata(input.serverMetadata, "serverMetadata");
  if (input.remaining !== undefined) patch.remaining = checkCount(input.remaining, "remaining", 0);
  if (input.refillAmount !== undefined || input.refillInterval !== undefined || patch.remaining === null) {
    const amount = input.refillAmount === undefined ? undefined : checkCount(input.refillAmount, "refillAmount", 1);
    const intervalMs = input.refillInterval === undefined ? undefined : checkRefillInterval(input.refillInterval);
    const current = await ownedKey(deps, input.keyId, owner);
    const next = resolveRefill(amount, intervalMs, {
      amount: current.refillAmount,
      intervalMs: current.refillIntervalMs,
    });
    const remaining = patch.remaining === undefined ? current.remaining : patch.remaining;
    if (next.amount !== null && remaining === null) {
      if (patch.remaining === null)
        throw invalidInput("remaining", "cannot be null (unlimited) on a key with a refill");
      patch.remaining = next.amount;
    }
    patch.refillAmount = next.amount;
    patch.refillIntervalMs = next.intervalMs;
    // A refill set on a key without one counts its first interval from now; changing it keeps the schedule.
    if (next.amount === null) patch.lastRefillAt = null;
    else if (current.refillAmount === null) patch.lastRefillAt = new Date(deps.ctx.clock.now());
  }
  if (input.expiresIn !== undefined) {
    const ms = checkExpiresIn(input.expiresIn);
    patch.expiresAt = ms === null ? null : new Date(deps.ctx.clock.now() + ms);
  }
  if (input.rateLimitMax !== undefined || input.rateLimitWindow !== undefined) {
    const max = input.rateLimitMax === undefined ? undefined : checkCount(input.rateLimitMax, "rateLimitMax", 1);
    const windowMs = input.rateLimitWindow === undefined ? undefined : checkRateLimitWindow(input.rateLimitWindow);
    const current = await ownedKey(deps, input.keyId, owner);
    const next = resolveRateLimit(max, windowMs, { max: current.rateLimitMax, windowMs: current.rateLimitWindowMs });
    patch.rateLimitMax = next.max;
    patch.rateLimitWindowMs = next.windowMs;
  }
  return { apiKey: await applyPatch(deps, input.keyId, owner, patch) };
}

/**
 * Update by the signed-in owner (HTTP): name, enabled, metadata and grantable permissions only. An update that
 * enables a disabled key or adds a permission the key lacks widens what the key can do: `assertFresh` (the
 * route's freshness check of the caller's session, 403 SESSION_NOT_FRESH) must pass first. With a session that
 * is not fresh, `enabled: true` on a key that is already enabled is dropped from the write, so a disable landing
 * meanwhile still wins.
 */
export async function updateApiKeyForCaller(
  deps: ApiKeyDeps,
  userId: string,
  input: CallerUpdateApiKeyInput,
  assertFresh: () => void,
): Promise<{ apiKey: ApiKeyView }> {
  assertNoServerOnlyFields(input);
  assertKnownFields(input, CALLER_UPDATE_FIELDS);
  const patch = basePatch(input);
  if (patch.permissions) await assertPermissionsFor(deps, userId, input.keyId, patch.permissions);
  if (patch.enabled === true || patch.permissions !== undefined) {
    let fresh = true;
    try {
      assertFresh();
    } catch (error) {
      fresh = false;
      const current = await ownedKey(deps, input.keyId, userId);
      const widens =
        (patch.enabled === true && !current.enabled) ||
        (patch.permissions !== undefined && !hasPermissions(current.permissions, patch.permissions));
      if (widens) throw error;
    }
    if (!fresh && patch.enabled === true) delete patch.enabled;
  }
  // The owner may disable their key, but not enable one an operator disabled (one conditional write, so a
  // lock that lands between a read and this write still wins).
  if (patch.enabled !== true) return { apiKey: await applyPatch(deps, input.keyId, userId, patch) };
  if (typeof input.keyId !== "string") throw new AuthError("KEY_NOT_FOUND", "No such API key");
  const row = await deps.keys.update(
    input.keyId,
    userId,
    { ...patch, updatedAt: new Date(deps.ctx.clock.now()) },
    { unlessLocked: true },
  );
  if (row) return { apiKey: toApiKeyView(row) };
  const current = await ownedKey(deps, input.keyId, userId);
  if (current.locked)
    throw new AuthError("KEY_LOCKED", "This API key was disabled by the service operator; only they can enable it");
  throw new AuthError("KEY_NOT_FOUND", "No such API key");
}

function basePatch(input: {
  name?: unknown;
  enabled?: unknown;
  metadata?: unknown;
  permissions?: unknown;
}): ApiKeyPatch {
  const patch: ApiKeyPatch = {};
  if (input.name !== undefined) patch.name = checkName(input.name);
  if (input.enabled !== undefined) patch.enabled = checkEnabled(input.enabled);
  if (input.metadata !== undefined) patch.metadata = checkMetadata(input.metadata);
  if (input.permissions !== undefined) patch.permissions = checkPermissions(input.permissions);
  return patch;
}

async function applyPatch(
  deps: ApiKeyDeps,
  keyId: unknown,
  owner: string | null,
  patch: ApiKeyPatch,
): Promise<ApiKeyView> {
  if (Object.keys(patch).length === 0) return toApiKeyView(await ownedKey(deps, keyId, owner));
  if (typeof keyId !== "string") throw new AuthError("KEY_NOT_FOUND", "No such API key");
  const row = await deps.keys.update(keyId, owner, {
    ...patch,
    updatedAt: new Date(deps.ctx.clock.now()),
  });
  if (!row) throw new AuthError("KEY_NOT_FOUND", "No such API key");
  return toApiKeyView(row);
}
