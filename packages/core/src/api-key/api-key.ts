import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomId, randomString } from "../crypto/crypto.ts";
import type { RequestMeta } from "../auth/request-meta.ts";
import type { AuthContext } from "../auth/context.ts";
import type { ApiKeyRecord, Permissions } from "../ports/records.ts";
import type { ApiKeyPatch, ApiKeyStore } from "../ports/store.ts";
import { hasPermissions } from "./permissions.ts";
import type { ResolvedApiKeysOptions } from "./options.ts";
import { toApiKeyView, type ApiKeyVerifyResult, type ApiKeyView } from "./view.ts";
import {
  API_KEY_RANDOM_LENGTH,
  API_KEY_START_LENGTH,
  authenticateApiKey,
  type ApiKeyAuthentication,
} from "./verify.ts";
import {
  assertNoServerOnlyFields,
  checkCount,
  checkCursor,
  checkEnabled,
  checkExpiresIn,
  checkLimit,
  checkMetadata,
  checkName,
  checkPermissions,
  checkPrefix,
  checkRateLimitWindow,
  resolveRateLimit,
} from "./input.ts";
import type {
  CallerCreateApiKeyInput,
  CallerUpdateApiKeyInput,
  CreateApiKeyInput,
  CreateApiKeyResult,
  ApiKeyPage,
  UpdateApiKeyInput,
  VerifyApiKeyInput,
} from "./types.ts";

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
    return this.insert(
      input.userId,
      {
        name: input.name === undefined ? null : checkName(input.name),
        prefix: input.prefix === undefined ? options.defaultPrefix : checkPrefix(input.prefix),
        expiresInMs: input.expiresIn === undefined ? options.defaultExpiresInMs : checkExpiresIn(input.expiresIn),
        metadata: input.metadata === undefined ? {} : checkMetadata(input.metadata),
        permissions: input.permissions === undefined ? {} : checkPermissions(input.permissions),
        enabled: input.enabled === undefined ? true : checkEnabled(input.enabled),
        remaining:
          input.remaining === undefined ? options.defaultRemaining : checkCount(input.remaining, "remaining", 0),
        rateLimitMax: rateLimit.max,
        rateLimitWindowMs: rateLimit.windowMs,
      },
      meta,
    );
  }

  /**
   * Create for the signed-in caller (HTTP): server-only fields are refused, permissions must be grantable,
   * and a requested lifetime may not exceed `maxExpiresIn` (default one year); without one, `defaultExpiresIn` applies.
   */
  async createForCaller(
    userId: string,
    input: CallerCreateApiKeyInput,
    meta: RequestMeta,
  ): Promise<CreateApiKeyResult> {
    const { options } = this;
    assertNoServerOnlyFields(input);
    const permissions = input.permissions === undefined ? {} : checkPermissions(input.permissions);
    this.assertGrantable(permissions);
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
        permissions,
        enabled: true,
        remaining: options.defaultRemaining,
        rateLimitMax: options.defaultRateLimitMax,
        rateLimitWindowMs: options.defaultRateLimitWindowMs,
      },
      meta,
    );
  }

  private async insert(
    userId: string,
    f: Pick<
      ApiKeyRecord,
      "name" | "prefix" | "metadata" | "permissions" | "enabled" | "remaining" | "rateLimitMax" | "rateLimitWindowMs"
    > & { expiresInMs: number | null },
    meta: RequestMeta,
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
      metadata: f.metadata,
      permissions: f.permissions,
      remaining: f.remaining,
      rateLimitMax: f.rateLimitMax,
      rateLimitWindowMs: f.rateLimitWindowMs,
      requestCount: 0,
      windowStart: null,
      lastUsedAt: null,
      expiresAt: f.expiresInMs === null ? null : new Date(now.getTime() + f.expiresInMs),
      createdAt: now,
      updatedAt: now,
    };
    await this.keys.create(record);
    await ctx.events.emit("ApiKeyCreated", {
      keyId: record.id,
      userId,
      at: now,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    return { apiKey: toApiKeyView(record), key };
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
   * See `verifyApiKey`: the hot path. A valid key's owner is read too (as `requireApiKey` does): a key whose owner
   * was deleted meanwhile is refused, never answered valid.
   */
  async verify(input: VerifyApiKeyInput, meta: RequestMeta): Promise<ApiKeyVerifyResult> {
    const result = await authenticateApiKey(this.ctx, this.keys, input, meta);
    return result.valid ? { valid: true, apiKey: result.apiKey } : result;
  }

  /** Verify plus the key's owner, for `requireApiKey` host routes. */
  authenticate(input: VerifyApiKeyInput, meta: RequestMeta): Promise<ApiKeyAuthentication> {
    return authenticateApiKey(this.ctx, this.keys, input, meta);
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
    if (input.remaining !== undefined) patch.remaining = checkCount(input.remaining, "remaining", 0);
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

  /** Update by the signed-in owner (HTTP): name, enabled, metadata and grantable permissions only. */
  async updateForCaller(
    userId: string,
    input: CallerUpdateApiKeyInput,
    _meta: RequestMeta,
  ): Promise<{ apiKey: ApiKeyView }> {
    assertNoServerOnlyFields(input);
    const patch = this.basePatch(input);
    if (patch.permissions) this.assertGrantable(patch.permissions);
    return { apiKey: await this.applyPatch(input.keyId, userId, patch) };
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
    await this.ctx.events.emit("ApiKeyRevoked", {
      keyId: row.id,
      userId: row.userId,
      at: new Date(this.ctx.clock.now()),
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    return { success: true };
  }

  /** Deletes expired keys of one user, or of every user when `owner` is null. */
  async deleteExpired(owner: string | null, meta: RequestMeta): Promise<{ deleted: number }> {
    const at = new Date(this.ctx.clock.now());
    const gone = await this.keys.deleteExpired(at, owner);
    for (const k of gone)
      await this.ctx.events.emit("ApiKeyRevoked", {
        keyId: k.id,
        userId: k.userId,
        at,
        ip: meta.ip,
        userAgent: meta.userAgent,
      });
    return { deleted: gone.length };
  }
}
