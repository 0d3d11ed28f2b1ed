import { AuthError } from "../errors/errors.ts";
import { hashSecret, randomString } from "../crypto/crypto.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { AuthContext } from "../context/context.ts";
import type { SessionRecord } from "../ports/records.ts";
import type { ApiKeyStore } from "../ports/store.ts";
import { roleGrants } from "../kernel/role-table.ts";
import type { ResolvedApiKeysOptions } from "./options.ts";
import { toApiKeyView, type ApiKeyVerifyResult, type ApiKeyView, type CallerApiKeyVerifyResult } from "./view.ts";
import {
  API_KEY_RANDOM_LENGTH,
  API_KEY_START_LENGTH,
  authenticateApiKey,
  type ApiKeyAuthentication,
} from "./verify.ts";
import { checkCursor, checkGracePeriod, checkLimit, invalidInput } from "./input.ts";
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
import { organizationOf, ownedKey, type ApiKeyDeps } from "./ownership.ts";
import { createApiKey, createApiKeyForCaller } from "./create.ts";
import { updateApiKey, updateApiKeyForCaller } from "./update.ts";

/** Events emitted between two turns of the event loop while a batch of expired keys is announced. */
const EVENTS_PER_TURN = 25;

const DAY_MS = 86_400_000;

/**
 * API keys: create, verify (the hot path), list, update, revoke and sweep. Installed by `apiKeys()`; the
 * HTTP routes call the `*ForCaller` methods, `auth.api` the trusted ones.
 *
 * @example
 * const { service } = auth.core.plugins.get(API_KEY_PLUGIN_ID)!;
 * const result = await service.verify({ key: request.headers.get("x-api-key") }, SERVER_CALL);
 */
export class ApiKeyService {
  /** What the steps in `create.ts`, `update.ts` and `ownership.ts` work with. */
  private readonly deps: ApiKeyDeps;

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedApiKeysOptions,
    private readonly keys: ApiKeyStore,
  ) {
    this.deps = { ctx, options, keys };
  }

  /** Trusted create: any user, quota, rate limit, permissions and lifetime. */
  create(input: CreateApiKeyInput, meta: RequestMeta): Promise<CreateApiKeyResult> {
    return createApiKey(this.deps, input, meta);
  }

  /**
   * Create for the signed-in caller (HTTP): server-only fields are refused, permissions must be grantable,
   * and a requested lifetime may not exceed `maxExpiresIn` (default one year); without one, `defaultExpiresIn` applies.
   */
  createForCaller(
    userId: string,
    input: CallerCreateApiKeyInput,
    meta: RequestMeta,
    session?: SessionRecord,
  ): Promise<CreateApiKeyResult> {
    return createApiKeyForCaller(this.deps, userId, input, meta, session);
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
    const organization = await organizationOf(this.deps, userId, organizationId);
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
  update(input: UpdateApiKeyInput, _meta: RequestMeta): Promise<{ apiKey: ApiKeyView }> {
    return updateApiKey(this.deps, input);
  }

  /**
   * Update by the signed-in owner (HTTP): name, enabled, metadata and grantable permissions only. An update that
   * enables a disabled key or adds a permission the key lacks widens what the key can do: `assertFresh` (the
   * route's freshness check of the caller's session, 403 SESSION_NOT_FRESH) must pass first. With a session that
   * is not fresh, `enabled: true` on a key that is already enabled is dropped from the write, so a disable landing
   * meanwhile still wins.
   */
  updateForCaller(
    userId: string,
    input: CallerUpdateApiKeyInput,
    _meta: RequestMeta,
    assertFresh: () => void = () => {},
  ): Promise<{ apiKey: ApiKeyView }> {
    return updateApiKeyForCaller(this.deps, userId, input, assertFresh);
  }

  /**
   * A new value for the key (same id, name, permissions, quota, limits and expiry). The replaced value keeps
   * verifying for `gracePeriod` (0: not at all); a second reroll inside the grace ends the first old value at once.
   * `owner` null is trusted code (any user's key).
   */
  async reroll(input: RerollApiKeyInput, owner: string | null, meta: RequestMeta): Promise<CreateApiKeyResult> {
    const graceMs = checkGracePeriod(input?.gracePeriod, this.options.maxRerollGraceMs);
    const current = await ownedKey(this.deps, input?.keyId, owner);
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
    const key = await ownedKey(this.deps, input?.keyId, owner);
    if (!options.usage)
      throw new AuthError("NOT_FOUND", "API-key usage is not recorded; enable it with apiKeys({ usage: true })");
    return { days: await readApiKeyUsage(this.ctx.store.counters, key.id, days, this.ctx.clock.now()) };
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
