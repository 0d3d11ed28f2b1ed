import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomId, randomString } from "../crypto/crypto.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { AuthContext } from "../context/context.ts";
import type { ApiKeyRecord, Permissions, SessionRecord } from "../ports/records.ts";
import { inTransaction } from "../context/transaction.ts";
import type { ApiKeyPatch, ApiKeyStore } from "../ports/store.ts";
import { hasPermissions } from "./permissions.ts";
import { roleGrants, type RoleTable } from "../kernel/role-table.ts";
import type { ResolvedApiKeysOptions } from "./options.ts";
import { toApiKeyView, type ApiKeyVerifyResult, type ApiKeyView, type CallerApiKeyVerifyResult } from "./view.ts";
import {
  API_KEY_RANDOM_LENGTH,
  API_KEY_START_LENGTH,
  authenticateApiKey,
  type ApiKeyAuthentication,
} from "./verify.ts";
import {
  assertKnownFields,
  assertNoServerOnlyFields,
  checkCount,
  checkCursor,
  checkEnabled,
  checkExpiresIn,
  checkGracePeriod,
  checkLimit,
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
import { readApiKeyUsage } from "./usage.ts";
import type {
  ApiKeyUsage,
  ApiKeyUsageInput,
  CallerCreateApiKeyInput,
  CallerUpdateApiKeyInput,
  CreateApiKeyInput,
  CreateApiKeyResult,
  ApiKeyPage,
  RerollApiKeyInput,
  UpdateApiKeyInput,
  VerifyApiKeyInput,
} from "./types.ts";
import { emit } from "../kernel/emit.ts";
import { inBatches, SWEEP_BATCH_SIZE, yieldToEventLoop } from "../sweep/index.ts";

const organizationNotFound = () =>
  new AuthError("ORGANIZATION_NOT_FOUND", "No such organization, or you are not a member of it");

/** Events emitted between two turns of the event loop while a batch of expired keys is announced. */
const EVENTS_PER_TURN = 25;

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

const DAY_MS = 86_400_000;

/** What an HTTP caller may send to create and to update a key; anything else is refused, never ignored. */
const CALLER_CREATE_FIELDS = [
  "name",
  "prefix",
  "expiresIn",
  "metadata",
  "permissions",
  "enabled",
  "organizationId",
] as const;
const CALLER_UPDATE_FIELDS = ["keyId", "name", "enabled", "metadata", "permissions"] as const;

/**
 * API keys: create, verify (the hot path), list, update, revoke and sweep. Installed by `apiKeys()`; the
 * HTTP routes call the `*ForCaller` methods, `auth.api` the trusted ones.
 *
 * @example
 * const { service } = auth.core.plugins.get(API_KEY_PLUGIN_ID)!;
 * const result = await service.verify({ key: request.headers.get("x-api-key") }, SERVER_CALL);
 */
export class ApiKeyService {
  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedApiKeysOptions,
    private readonly keys: ApiKeyStore,
  ) {}

  /** Trusted create: any user, quota, rate limit, permissions and lifetime. */
  async create(input: CreateApiKeyInput, meta: RequestMeta): Promise<CreateApiKeyResult> {
    const { options } = this;
    if (typeof input?.userId !== "string" || !(await this.ctx.store.users.findById(input.userId)))
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
    const organization = await this.organizationOf(input.userId, input.organizationId);
    return this.insert(
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
        remaining: this.initialRemaining(remaining, refill.amount),
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
  private initialRemaining(remaining: number | null | undefined, refillAmount: number | null): number | null {
    if (refillAmount === null) return remaining === undefined ? this.options.defaultRemaining : remaining;
    if (remaining === null) throw invalidInput("remaining", "cannot be null (unlimited) on a key with a refill");
    return remaining ?? this.options.defaultRemaining ?? refillAmount;
  }

  /**
   * Create for the signed-in caller (HTTP): server-only fields are refused, permissions must be grantable,
   * and a requested lifetime may not exceed `maxExpiresIn` (default one year); without one, `defaultExpiresIn` applies.
   */
  async createForCaller(
    userId: string,
    input: CallerCreateApiKeyInput,
    meta: RequestMeta,
    session?: SessionRecord,
  ): Promise<CreateApiKeyResult> {
    const { options } = this;
    if (!options.httpCreate)
      throw new AuthError(
        "KEY_CREATION_DISABLED",
        "API keys are issued by the service, not created here (apiKeys({ httpCreate: false }))",
      );
    assertNoServerOnlyFields(input);
    assertKnownFields(input, CALLER_CREATE_FIELDS);
    const permissions = input.permissions === undefined ? {} : checkPermissions(input.permissions);
    const organization = await this.organizationOf(userId, input.organizationId);
    if (organization === null) this.assertGrantable(permissions);
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
    return this.insert(
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
        remaining: this.initialRemaining(undefined, options.defaultRefillAmount),
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

  private async insert(
    userId: string,
    f: NewKeyFields,
    meta: RequestMeta,
    trusted: boolean,
    session?: SessionRecord,
  ): Promise<CreateApiKeyResult> {
    const { ctx } = this;
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
    const limit = { maxPerUser: this.options.maxPerUser };
    // For a signed-in caller, the key commits only if the session that asked for it still exists then.
    const created =
      session === undefined
        ? await this.keys.create(record, limit)
        : await inTransaction(ctx, async (tx) => {
            const done = await (tx.store.apiKeys ?? this.keys).create(record, limit);
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
        `A user may hold at most ${this.options.maxPerUser} API keys; delete one first (apiKeys({ maxPerUser }))`,
      );
    }
    await emit(ctx, "ApiKeyCreated", { keyId: record.id, userId }, meta, now);
    return { apiKey: toApiKeyView(record), key };
  }

  /**
   * The organization a new key is for (`organizationId`, `organizations()`): null when none is asked for; 404
   * `ORGANIZATION_NOT_FOUND` when `userId` is not a member of it (whether or not it exists).
   */
  private async organizationOf(
    userId: string,
    organizationId: unknown,
  ): Promise<{ organizationId: string; role: string; roles: RoleTable } | null> {
    if (organizationId === undefined || organizationId === null) return null;
    if (typeof organizationId !== "string" || organizationId === "" || organizationId.length > 64)
      throw invalidInput("organizationId", "must be an organization's id");
    const roles = this.ctx.organizationRoles;
    const organizations = this.ctx.store.organizations;
    if (roles === null || !organizations)
      throw invalidInput("organizationId", "needs the organizations() plugin installed");
    const member = await organizations.findMember(organizationId, userId);
    if (!member) throw organizationNotFound();
    return { organizationId, role: member.role, roles };
  }

  /**
   * A page of an organization's keys (whoever created them), newest first: for a member whose role grants
   * `apiKey: ["read"]` (403 `INSUFFICIENT_PERMISSIONS` otherwise; 404 `ORGANIZATION_NOT_FOUND` for others).
   */
  async listForOrganization(
    userId: string,
    organizationId: unknown,
    page: { limit?: number | null; cursor?: string | null } = {},
  ): Promise<ApiKeyPage> {
    const limit = checkLimit(page.limit);
    const cursor = checkCursor(page.cursor);
    const organization = await this.organizationOf(userId, organizationId);
    if (organization === null) throw invalidInput("organizationId", "must be an organization's id");
    if (!roleGrants(organization.roles, organization.role, { apiKey: ["read"] }))
      throw new AuthError(
        "INSUFFICIENT_PERMISSIONS",
        "Your role in this organization does not allow reading its API keys",
      );
    const result = await this.keys.listByOrganization(organization.organizationId, { limit, cursor });
    return { apiKeys: result.items.map(toApiKeyView), nextCursor: result.nextCursor };
  }

  /**
   * What an owner may put on one of their keys: `grantablePermissions` on their own key; on an organization's key,
   * no more than their role in the organization grants now (404 `ORGANIZATION_NOT_FOUND` once they left it).
   */
  private async assertPermissionsFor(userId: string, keyId: unknown, permissions: Permissions): Promise<void> {
    const current = await this.owned(keyId, userId);
    if (current.organizationId == null) return this.assertGrantable(permissions);
    const organization = await this.organizationOf(userId, current.organizationId);
    if (organization && !roleGrants(organization.roles, organization.role, permissions))
      throw new AuthError(
        "INSUFFICIENT_PERMISSIONS",
        "An organization's API key may carry only permissions your role in it grants",
      );
  }

  private assertGrantable(permissions: Permissions): void {
    if (!hasPermissions(this.options.grantablePermissions, permissions)) {
      throw new AuthError(
        "INSUFFICIENT_PERMISSIONS",
        "Those permissions cannot be granted to your own keys (see apiKeys({ grantablePermissions }))",
      );
    }
  }

  /**
   * See `authenticateApiKey`: the hot path. A valid key's owner is read with it (as `requireApiKey` needs): a key
   * whose owner is gone is refused, never answered valid.
   */
  async verify(input: VerifyApiKeyInput, meta: RequestMeta): Promise<ApiKeyVerifyResult> {
    const result = await authenticateApiKey(this.ctx, this.keys, this.options, input, meta);
    return result.valid ? { valid: true, apiKey: result.apiKey, deprecated: result.deprecated } : result;
  }

  /**
   * `verify` for an untrusted caller (`POST /api-key/verify`): anyone holding a key may call it, so the answer
   * leaves out `serverMetadata` (operator data; `auth.api.verifyApiKey` and `requireApiKey` keep it).
   */
  async verifyForCaller(input: VerifyApiKeyInput, meta: RequestMeta): Promise<CallerApiKeyVerifyResult> {
    const result = await this.verify(input, meta);
    if (!result.valid) return result;
    const { serverMetadata: _operatorData, ...apiKey } = result.apiKey;
    return { ...result, apiKey };
  }

  /** Verify plus the key's owner, for `requireApiKey` host routes. */
  authenticate(input: VerifyApiKeyInput, meta: RequestMeta): Promise<ApiKeyAuthentication> {
    return authenticateApiKey(this.ctx, this.keys, this.options, input, meta);
  }

  /** A page of the user's keys, newest first. */
  async list(userId: string, page: { limit?: number | null; cursor?: string | null } = {}): Promise<ApiKeyPage> {
    const result = await this.keys.listByUser(userId, {
      limit: checkLimit(page.limit),
      cursor: checkCursor(page.cursor),
    });
    return { apiKeys: result.items.map(toApiKeyView), nextCursor: result.nextCursor };
  }

  /** Trusted update: also quota, rate limit and lifetime; `userId` (optional) scopes it to one owner. */
  async update(input: UpdateApiKeyInput, _meta: RequestMeta): Promise<{ apiKey: ApiKeyView }> {
    const owner = input.userId ?? null;
    const patch = this.basePatch(input);
    // Trusted code's enabled flag is an operator's decision: false locks the key against its owner, true unlocks.
    if (patch.enabled !== undefined) patch.locked = !patch.enabled;
    if (input.serverMetadata !== undefined)
      patch.serverMetadata = checkMetadata(input.serverMetadata, "serverMetadata");
    if (input.remaining !== undefined) patch.remaining = checkCount(input.remaining, "remaining", 0);
    if (input.refillAmount !== undefined || input.refillInterval !== undefined || patch.remaining === null) {
      const amount = input.refillAmount === undefined ? undefined : checkCount(input.refillAmount, "refillAmount", 1);
      const intervalMs = input.refillInterval === undefined ? undefined : checkRefillInterval(input.refillInterval);
      const current = await this.owned(input.keyId, owner);
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
      else if (current.refillAmount === null) patch.lastRefillAt = new Date(this.ctx.clock.now());
    }
    if (input.expiresIn !== undefined) {
      const ms = checkExpiresIn(input.expiresIn);
      patch.expiresAt = ms === null ? null : new Date(this.ctx.clock.now() + ms);
    }
    if (input.rateLimitMax !== undefined || input.rateLimitWindow !== undefined) {
      const max = input.rateLimitMax === undefined ? undefined : checkCount(input.rateLimitMax, "rateLimitMax", 1);
      const windowMs = input.rateLimitWindow === undefined ? undefined : checkRateLimitWindow(input.rateLimitWindow);
      const current = await this.owned(input.keyId, owner);
      const next = resolveRateLimit(max, windowMs, { max: current.rateLimitMax, windowMs: current.rateLimitWindowMs });
      patch.rateLimitMax = next.max;
      patch.rateLimitWindowMs = next.windowMs;
    }
    return { apiKey: await this.applyPatch(input.keyId, owner, patch) };
  }

  /**
   * Update by the signed-in owner (HTTP): name, enabled, metadata and grantable permissions only. An update that
   * enables a disabled key or adds a permission the key lacks widens what the key can do: `assertFresh` (the
   * route's freshness check of the caller's session, 403 SESSION_NOT_FRESH) must pass first. With a session that
   * is not fresh, `enabled: true` on a key that is already enabled is dropped from the write, so a disable landing
   * meanwhile still wins.
   */
  async updateForCaller(
    userId: string,
    input: CallerUpdateApiKeyInput,
    _meta: RequestMeta,
    assertFresh: () => void = () => {},
  ): Promise<{ apiKey: ApiKeyView }> {
    assertNoServerOnlyFields(input);
    assertKnownFields(input, CALLER_UPDATE_FIELDS);
    const patch = this.basePatch(input);
    if (patch.permissions) await this.assertPermissionsFor(userId, input.keyId, patch.permissions);
    if (patch.enabled === true || patch.permissions !== undefined) {
      let fresh = true;
      try {
        assertFresh();
      } catch (error) {
        fresh = false;
        const current = await this.owned(input.keyId, userId);
        const widens =
          (patch.enabled === true && !current.enabled) ||
          (patch.permissions !== undefined && !hasPermissions(current.permissions, patch.permissions));
        if (widens) throw error;
      }
      if (!fresh && patch.enabled === true) delete patch.enabled;
    }
    // The owner may disable their key, but not enable one an operator disabled (one conditional write, so a
    // lock that lands between a read and this write still wins).
    if (patch.enabled !== true) return { apiKey: await this.applyPatch(input.keyId, userId, patch) };
    if (typeof input.keyId !== "string") throw new AuthError("KEY_NOT_FOUND", "No such API key");
    const row = await this.keys.update(
      input.keyId,
      userId,
      { ...patch, updatedAt: new Date(this.ctx.clock.now()) },
      { unlessLocked: true },
    );
    if (row) return { apiKey: toApiKeyView(row) };
    const current = await this.owned(input.keyId, userId);
    if (current.locked)
      throw new AuthError("KEY_LOCKED", "This API key was disabled by the service operator; only they can enable it");
    throw new AuthError("KEY_NOT_FOUND", "No such API key");
  }

  /**
   * A new value for the key (same id, name, permissions, quota, limits and expiry). The replaced value keeps
   * verifying for `gracePeriod` (0: not at all); a second reroll inside the grace ends the first old value at once.
   * `owner` null is trusted code (any user's key).
   */
  async reroll(input: RerollApiKeyInput, owner: string | null, meta: RequestMeta): Promise<CreateApiKeyResult> {
    const graceMs = checkGracePeriod(input?.gracePeriod, this.options.maxRerollGraceMs);
    const current = await this.owned(input?.keyId, owner);
    const key = current.prefix + randomString(this.ctx.random, API_KEY_RANDOM_LENGTH);
    const at = new Date(this.ctx.clock.now());
    const graceUntil = graceMs === 0 ? null : new Date(at.getTime() + graceMs);
    const row = await this.keys.reroll(current.id, owner, {
      keyHash: hashSecret(key),
      start: key.slice(0, API_KEY_START_LENGTH),
      graceUntil,
      at,
    });
    if (!row) throw new AuthError("KEY_NOT_FOUND", "No such API key");
    await emit(this.ctx, "ApiKeyRerolled", { keyId: row.id, userId: row.userId, graceUntil }, meta, at);
    return { apiKey: toApiKeyView(row), key };
  }

  /**
   * Forgets the replaced values whose grace ended (their hashes): what a periodic sweep calls. With `limit`, one
   * batch of at most that many keys; without, every one, in batches with a turn of the event loop between two.
   */
  async deleteExpiredRerolls(limit?: number): Promise<{ cleared: number }> {
    const batch = (size: number) => this.keys.deleteExpiredRerolls(new Date(this.ctx.clock.now()), size);
    return {
      cleared:
        limit === undefined
          ? await inBatches(this.ctx.store.sweepBatchSize ?? SWEEP_BATCH_SIZE, batch)
          : await batch(limit),
    };
  }

  /** Per-day usage of one key (`owner` null: any user's key), oldest day first. Needs `apiKeys({ usage: true })`. */
  async usage(input: ApiKeyUsageInput, owner: string | null): Promise<ApiKeyUsage> {
    const { options } = this;
    const maxDays = Math.floor(options.usageRetentionMs / DAY_MS);
    const days = input?.days ?? 30;
    if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > maxDays)
      throw invalidInput("days", `must be an integer from 1 to ${maxDays} (apiKeys({ usageRetention }))`);
    const key = await this.owned(input?.keyId, owner);
    if (!options.usage)
      throw new AuthError("NOT_FOUND", "API-key usage is not recorded; enable it with apiKeys({ usage: true })");
    return { days: await readApiKeyUsage(this.ctx.store.counters, key.id, days, this.ctx.clock.now()) };
  }

  private basePatch(input: {
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

  private async owned(keyId: unknown, owner: string | null): Promise<ApiKeyRecord> {
    const row = typeof keyId === "string" ? await this.keys.findById(keyId) : null;
    if (!row || (owner !== null && row.userId !== owner)) throw new AuthError("KEY_NOT_FOUND", "No such API key");
    return row;
  }

  private async applyPatch(keyId: unknown, owner: string | null, patch: ApiKeyPatch): Promise<ApiKeyView> {
    if (Object.keys(patch).length === 0) return toApiKeyView(await this.owned(keyId, owner));
    if (typeof keyId !== "string") throw new AuthError("KEY_NOT_FOUND", "No such API key");
    const row = await this.keys.update(keyId, owner, {
      ...patch,
      updatedAt: new Date(this.ctx.clock.now()),
    });
    if (!row) throw new AuthError("KEY_NOT_FOUND", "No such API key");
    return toApiKeyView(row);
  }

  /** Revokes one key; `owner` null (trusted code) deletes any owner's key. Another user's key is KEY_NOT_FOUND. */
  async delete(keyId: string, owner: string | null, meta: RequestMeta): Promise<{ success: true }> {
    const row = typeof keyId === "string" ? await this.keys.delete(keyId, owner) : null;
    if (!row) throw new AuthError("KEY_NOT_FOUND", "No such API key");
    await emit(this.ctx, "ApiKeyRevoked", { keyId: row.id, userId: row.userId }, meta);
    return { success: true };
  }

  /**
   * Deletes expired keys of one user, or of every user when `owner` is null, and emits one `ApiKeyRevoked` per key.
   * With `limit`, one batch of at most that many keys; without, every one, in batches with a turn of the event
   * loop between two. The events of a batch get a turn every `EVENTS_PER_TURN` too: each may write an audit row,
   * which on a libSQL file is a statement run on this thread.
   */
  async deleteExpired(owner: string | null, meta: RequestMeta, limit?: number): Promise<{ deleted: number }> {
    const batch = async (size: number) => {
      const at = new Date(this.ctx.clock.now());
      const gone = await this.keys.deleteExpired(at, owner, size);
      for (const [i, k] of gone.entries()) {
        if (i > 0 && i % EVENTS_PER_TURN === 0) await yieldToEventLoop();
        await emit(this.ctx, "ApiKeyRevoked", { keyId: k.id, userId: k.userId }, meta, at);
      }
      return gone.length;
    };
    return {
      deleted:
        limit === undefined
          ? await inBatches(this.ctx.store.sweepBatchSize ?? SWEEP_BATCH_SIZE, batch)
          : await batch(limit),
    };
  }
}
