import { invalidField } from "../errors/errors.ts";
import type { Store } from "../ports/store.ts";
import type { UserRecord } from "../ports/records.ts";
import { inBatches, SWEEP_BATCH_SIZE, yieldToEventLoop } from "./batches.ts";

/** What one sweep removed, per table. */
export interface SweepReport {
  /** Rate-limit, lockout and budget counters whose window ended. */
  counters: number;
  /** Expired sessions. */
  sessions: number;
  /** Expired codes and link tokens. */
  verifications: number;
  /** Expired API keys (only with `apiKeys()` installed, or a store with the port from the CLI). */
  apiKeys: number;
  /** Old values of rerolled API keys whose grace ended (cleared, so they stop verifying and leave the index). */
  apiKeyRerolls: number;
  /** Audit rows older than `auditLog({ retention })`. */
  auditEvents: number;
  /** Users still unverified `emailVerification.deleteUnverifiedAfter` after sign-up (when set). */
  unverifiedUsers: number;
}

/** Options of `auth.api.sweep()`. */
export interface SweepOptions {
  /**
   * Rows deleted per statement (1..10000); default: the store's own `sweepBatchSize` (200 on a libSQL file), else
   * 1000. The event loop gets a turn between two batches.
   */
  batchSize?: number;
}

/** What `sweepStore` removes, resolved: the transport-free plan both `auth.api.sweep` and `latchkey sweep` run. */
export interface SweepPlan {
  now: Date;
  batchSize: number;
  /** Audit rows with `at` before this go; null keeps them. */
  auditBefore: Date | null;
  /** Unverified users created before this go; null keeps them. */
  unverifiedBefore: Date | null;
  /**
   * Deletes one batch of at most `limit` expired API keys and returns how many went (the service emits
   * `ApiKeyRevoked`); absent: none.
   */
  deleteExpiredApiKeys?: (now: Date, limit: number) => Promise<number>;
  /** Clears the old values of at most `limit` rerolled keys whose grace ended and returns how many; absent: none. */
  clearExpiredRerolls?: (now: Date, limit: number) => Promise<number>;
  /** Deletes one user found unverified; the default deletes the row and its cascade through the store. */
  deleteUser?: (user: UserRecord) => Promise<boolean>;
}

/**
 * 400 INVALID_REQUEST unless `batchSize` is an integer from 1 to 10000; when absent, the store's own
 * `sweepBatchSize`, else 1000.
 */
export function sweepBatchSize(batchSize: unknown, storeDefault?: number): number {
  if (batchSize === undefined) return storeDefault ?? SWEEP_BATCH_SIZE;
  if (typeof batchSize !== "number" || !Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10_000)
    throw invalidField("batchSize", "batchSize must be an integer from 1 to 10000");
  return batchSize;
}

/**
 * Deletes every row past its life, table by table, in batches of `plan.batchSize` with a turn of the event loop
 * between two batches (a 100k-row sweep never holds the process for long): ended counters, expired sessions,
 * codes and tokens, expired API keys and old values of rerolled ones, audit rows past retention and, when asked,
 * long-unverified users.
 *
 * @example
 * const report = await sweepStore(store, { now: new Date(), batchSize: 1000, auditBefore: null, unverifiedBefore: null });
 */
export async function sweepStore(store: Store, plan: SweepPlan): Promise<SweepReport> {
  const { now, batchSize: size } = plan;
  const report: SweepReport = {
    counters: await inBatches(size, (limit) => store.counters.deleteExpired(now.getTime(), limit)),
    sessions: await inBatches(size, (limit) => store.sessions.deleteExpired(now, limit)),
    verifications: await inBatches(size, (limit) => store.verifications.deleteExpired(now, limit)),
    apiKeys: 0,
    apiKeyRerolls: 0,
    auditEvents: 0,
    unverifiedUsers: 0,
  };
  const { deleteExpiredApiKeys, clearExpiredRerolls } = plan;
  if (deleteExpiredApiKeys) report.apiKeys = await inBatches(size, (limit) => deleteExpiredApiKeys(now, limit));
  if (clearExpiredRerolls) report.apiKeyRerolls = await inBatches(size, (limit) => clearExpiredRerolls(now, limit));
  const { audit } = store;
  const { auditBefore, unverifiedBefore } = plan;
  if (audit && auditBefore)
    report.auditEvents = await inBatches(size, (limit) => audit.deleteBefore(auditBefore, limit));
  if (unverifiedBefore) {
    const deleteUser = plan.deleteUser ?? ((user: UserRecord) => store.users.delete(user.id));
    for (;;) {
      const candidates = await store.users.listUnverifiedBefore(unverifiedBefore, size);
      let removed = 0;
      for (const [i, candidate] of candidates.entries()) {
        // A deletion is several statements and an event (an audit row, with the audit log): a turn of the event
        // loop between two users, so a batch of them does not hold a libSQL file's process.
        if (i > 0) await yieldToEventLoop();
        // Read again just before the delete: an address verified since the list was read keeps its account.
        const user = await store.users.findById(candidate.id);
        if (user && !user.emailVerified && user.createdAt < unverifiedBefore && (await deleteUser(user))) removed++;
      }
      report.unverifiedUsers += removed;
      if (candidates.length < size || removed === 0) break;
      await yieldToEventLoop();
    }
  }
  return report;
}
