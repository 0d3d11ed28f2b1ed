import { AuthEvents } from "../kernel/events.ts";
import type { AuthEventMap, AuthEventName } from "../kernel/events.ts";
import { OneTimeSecrets } from "../one-time/one-time.ts";
import { SessionService } from "../session/session.ts";
import type { Store, StorePorts } from "../ports/store.ts";
import type { AuthContext } from "./context.ts";

/** Holds the events a transaction body emits until it commits; a rolled-back body emits nothing. */
class DeferredEvents extends AuthEvents {
  readonly queued: Array<() => Promise<void>> = [];
  constructor(private readonly target: AuthEvents) {
    super();
  }
  override async emit<K extends AuthEventName>(name: K, payload: AuthEventMap[K]): Promise<void> {
    this.queued.push(() => this.target.emit(name, payload));
  }
  /** Whether the target has a listener for it now (when the event is emitted, as outside a transaction). */
  override listens(name: AuthEventName): boolean {
    return this.target.listens(name);
  }
}

/**
 * Runs a multi-row write in one store transaction: `body` gets a context whose store, sessions and one-time
 * secrets write through the transaction, so everything it writes commits together or not at all. Counters
 * (rate limits, lockout) stay outside: they may live in another engine. Events are emitted after the commit.
 *
 * @example
 * const result = await inTransaction(ctx, async (tx) => {
 *   await tx.store.accounts.upsertPassword(user.id, account);
 *   return tx.sessions.revokeAll(user.id);
 * });
 */
export async function inTransaction<T>(ctx: AuthContext, body: (tx: AuthContext) => Promise<T>): Promise<T> {
  let events: DeferredEvents | null = null;
  const result = await ctx.store.transaction(async (ports: StorePorts) => {
    events = new DeferredEvents(ctx.events);
    const store: Store = {
      ...ctx.store,
      ...ports,
      counters: ctx.store.counters,
      // Nested transactions join this one.
      transaction: (inner) => inner({ ...ports, counters: ctx.store.counters }),
    };
    const tx: AuthContext = {
      ...ctx,
      store,
      events,
      sessions: new SessionService(ctx.config, store, ctx.clock, ctx.random),
      secrets: new OneTimeSecrets(store, ctx.clock, ctx.random),
    };
    return body(tx);
  });
  const committed = events as DeferredEvents | null;
  if (committed) for (const emit of committed.queued) await emit();
  return result;
}
