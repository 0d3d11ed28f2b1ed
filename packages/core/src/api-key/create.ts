import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomId, randomString } from "../crypto/crypto.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { ApiKeyRecord, SessionRecord } from "../ports/records.ts";
import { inTransaction } from "../context/transaction.ts";
import { roleGrants } from "../kernel/role-table.ts";
import type { ResolvedApiKeysOptions } from "./options.ts";
import { toApiKeyView } from "./view.ts";
import { API_KEY_RANDOM_LENGTH, API_KEY_START_LENGTH } from "./verify.ts";
import {
  assertKnownFields,
  assertNoServerOnlyFields,
  checkCount,
  checkEnabled,
  checkExpiresIn,
  checkMetadata,
  checkName,
  checkPermissions,
  checkPrefix,
  checkRateLimitWindow,
  checkRefillInterval,
  invalidInput,
  resolveRateLimit,
  resolveRefill,
} from "./input.ts";
import type { CallerCreateApiKeyInput, CreateApiKeyInput, CreateApiKeyResult } from "./types.ts";
import { emit } from "../kernel/emit.ts";
import { assertGrantable, organizationNotFound, organizationOf, type ApiKeyDeps } from "./ownership.ts";

/** The fields a new key is made of, decided by the create flavour (trusted or caller). */
type NewKeyFields = Pick<
  ApiKeyRecord,
  | "name"
  | "prefix"
  | "metadata"
  | "serverMetadata"
  | "permissions"
  | "enabled"
  | "locked"
  | "remaining"
  | "rateLimitMax"
  | "rateLimitWindowMs"
  | "refillAmount"
  | "refillIntervalMs"
  | "organizationId"
> & { expiresInMs: number | null };

/** What an HTTP caller may send to create a key; anything else is refused, never ignored. */
const CALLER_CREATE_FIELDS = [
  "name",
  "prefix",
  "expiresIn",
  "metadata",
  "permissions",
  "enabled",
  "organizationId",
] as const;

/** Trusted create: any user, quota, rate limit, permissions and lifetime. */
export async function createApiKey(
  deps: ApiKeyDeps,
  input: CreateApiKeyInput,
  meta: RequestMeta,
): Promise<CreateApiKeyResult> {
  const { options } = deps;
  if (typeof input?.userId !== "string" || !(await deps.ctx.store.users.findById(input.userId)))
    throw new AuthError("NOT_FOUND", "No user with that id");
  const rateLimit = resolveRateLimit(
    input.rateLimitMax === undefined ? undefined : checkCount(input.rateLimitMax, "rateLimitMax", 1),
    input.rateLimitWindow === undefined ? undefined : checkRateLimitWindow(input.rateLimitWindow),
    { max: options.defaultRateLimitMax, windowMs: options.defaultRateLimitWindowMs },
  );
  const refill = resolveRefill(
    input.refillAmount === undefined ? undefined : checkCount(input.refillAmount, "refillAmount", 1),
    input.refillInterval === undefined ? undefined : checkRefillInterval(input.refillInterval),
    { amount: options.defaultRefillAmount, intervalMs: options.defaultRefillIntervalMs },
  );
  const remaining = input.remaining === undefined ? undefined : checkCount(input.remaining, "remaining", 0);
  // Trusted code may give an organization's key any permissions: every verify caps them by the creator's role.
  const organization = await organizationOf(deps, input.userId, input.organizationId);
  return insertKey(
    deps,
    input.userId,
    {
      name: input.name === undefined ? null : checkName(input.name),
      prefix: input.prefix === undefined ? options.defaultPrefix : checkPrefix(input.prefix),
      expiresInMs: input.expiresIn === undefined ? options.defaultExpiresInMs : checkExpiresIn(input.expiresIn),
      metadata: input.metadata === undefined ? {} : checkMetadata(input.metadata),
      serverMetadata: input.serverMetadata === undefined ? {} : checkMetadata(input.serverMetadata, "serverMetadata"),
      permissions: input.permissions === undefined ? {} : checkPermissions(input.permissions),
      enabled: input.enabled === undefined ? true : checkEnabled(input.enabled),
      // Only trusted code creates a locked key: a disabled key is an operator's decision the owner cannot undo.
      locked: input.enabled === false,
      remaining: initialRemaining(options, remaining, refill.amount),
      rateLimitMax: rateLimit.max,
      rateLimitWindowMs: rateLimit.windowMs,
      refillAmount: refill.amount,
      refillIntervalMs: refill.intervalMs,
      organizationId: organization?.organizationId ?? null,
    },
    meta,
    true,
  );
}

/** A refilling key starts full unless told otherwise, and cannot be unlimited (nothing would be refilled). */
function initialRemaining(
  options: ResolvedApiKeysOptions,
  remaining: number | null | undefined,
  refillAmount: number | null,
): number | null {
  if (refillAmount === null) return remaining === undefined ? options.defaultRemaining : remaining;
  if (remaining === null) throw invalidInput("remaining", "cannot be null (unlimited) on a key with a refill");
  return remaining ?? options.defaultRemaining ?? refillAmount;
}

/**
 * Create for the signed-in caller (HTTP): server-only fields are refused, permissions must be grantable,
 * and a requested lifetime may not exceed `maxExpiresIn` (default one year); without one, `defaultExpiresIn` applies.
 */
export async function createApiKeyForCaller(
  deps: ApiKeyDeps,
  userId: string,
  input: CallerCreateApiKeyInput,
  meta: RequestMeta,
  session?: SessionRecord,
): Promise<CreateApiKeyResult> {
  const { options } = deps;
  if (!options.httpCreate)
    throw new AuthError(
      "KEY_CREATION_DISABLED",
      "API keys are issued by the service, not created here (apiKeys({ httpCreate: false }))",
    );
  assertNoServerOnlyFields(input);
  assertKnownFields(input, CALLER_CREATE_FIELDS);
  const permissions = input.permissions === undefined ? {} : checkPermissions(input.permissions);
  const organization = await organizationOf(deps, userId, input.organizationId);
  if (organization === null) assertGrantable(options, permissions);
  else {
    // An organization's key: made by a member whose role grants `apiKey: ["create"]`, carrying no more than
    // that role's statements (every verify caps it by the creator's role again).
    if (!roleGrants(organization.roles, organization.role, { apiKey: ["create"] }))
      throw new AuthError(
        "INSUFFICIENT_PERMISSIONS",
        "Your role in this organization does not allow creating its API keys",
      );
    if (!roleGrants(organization.roles, organization.role, permissions))
      throw new AuthError(
        "INSUFFICIENT_PERMISSIONS",
        "An organization's API key may carry only permissions your role in it grants",
      );
  }
  // Omitted: the operator's default lifetime. Asked for: at most `maxExpiresIn` (and not "never") when capped.
  const expiresInMs = input.expiresIn === undefined ? options.defaultExpiresInMs : checkExpiresIn(input.expiresIn);
  const cap = options.maxExpiresInMs;
  if (input.expiresIn !== undefined && cap !== null && (expiresInMs === null || expiresInMs > cap)) {
    throw new AuthError("INVALID_REQUEST", `expiresIn may be at most ${cap / 1000} seconds`, {
      details: [{ path: "expiresIn", message: "longer than the longest key lifetime allowed" }],
    });
  }
  return insertKey(
    deps,
    userId,
    {
      name: input.name === undefined ? null : checkName(input.name),
      prefix: input.prefix === undefined ? options.defaultPrefix : checkPrefix(input.prefix),
      expiresInMs,
      metadata: input.metadata === undefined ? {} : checkMetadata(input.metadata),
      serverMetadata: {},
      permissions,
      // The owner's own choice: a key created disabled is not locked, so the owner may enable it later.
      enabled: input.enabled === undefined ? true : checkEnabled(input.enabled),
      locked: false,
      remaining: initialRemaining(options, undefined, options.defaultRefillAmount),
      rateLimitMax: options.defaultRateLimitMax,
      rateLimitWindowMs: options.defaultRateLimitWindowMs,
      refillAmount: options.defaultRefillAmount,
      refillIntervalMs: options.defaultRefillIntervalMs,
      organizationId: organization?.organizationId ?? null,
    },
    meta,
    false,
    session,
  );
}

async function insertKey(
  deps: ApiKeyDeps,
  userId: string,
  f: NewKeyFields,
  meta: RequestMeta,
  trusted: boolean,
  session?: SessionRecord,
): Promise<CreateApiKeyResult> {
  const { ctx } = deps;
  const key = f.prefix + randomString(ctx.random, API_KEY_RANDOM_LENGTH);
  const now = new Date(ctx.clock.now());
  const record: ApiKeyRecord = {
    id: randomId(ctx.random),
    userId,
    name: f.name,
    prefix: f.prefix,
    start: key.slice(0, API_KEY_START_LENGTH),
    keyHash: hashSecret(key),
    enabled: f.enabled,
    locked: f.locked,
    metadata: f.metadata,
    serverMetadata: f.serverMetadata,
    permissions: f.permissions,
    remaining: f.remaining,
    refillAmount: f.refillAmount,
    refillIntervalMs: f.refillIntervalMs,
    lastRefillAt: f.refillAmount === null ? null : now,
    previousKeyHash: null,
    previousKeyExpiresAt: null,
    rerolledAt: null,
    rateLimitMax: f.rateLimitMax,
    rateLimitWindowMs: f.rateLimitWindowMs,
    requestCount: 0,
    windowStart: null,
    lastUsedAt: null,
    expiresAt: f.expiresInMs === null ? null : new Date(now.getTime() + f.expiresInMs),
    createdAt: now,
    updatedAt: now,
    organizationId: f.organizationId,
  };
  const limit = { maxPerUser: deps.options.maxPerUser };
  // For a signed-in caller, the key commits only if the session that asked for it still exists then.
  const created =
    session === undefined
      ? await deps.keys.create(record, limit)
      : await inTransaction(ctx, async (tx) => {
          const done = await (tx.store.apiKeys ?? deps.keys).create(record, limit);
          if (done === true) await tx.sessions.assertStillLive(session);
          return done;
        });
  // The owner was deleted by a concurrent request (their account, and so the caller's session, is gone).
  // The organization was deleted, or the creator left it, meanwhile: nothing was written.
  if (created === "organization-gone") throw organizationNotFound();
  if (created === "owner-gone") {
    throw trusted
      ? new AuthError("NOT_FOUND", "No user with that id")
      : new AuthError("INVALID_CREDENTIALS", "The account no longer exists");
  }
  if (!created) {
    throw new AuthError(
      "TOO_MANY_KEYS",
      `A user may hold at most ${deps.options.maxPerUser} API keys; delete one first (apiKeys({ maxPerUser }))`,
    );
  }
  await emit(ctx, "ApiKeyCreated", { keyId: record.id, userId }, meta, now);
  return { apiKey: toApiKeyView(record), key };
}
