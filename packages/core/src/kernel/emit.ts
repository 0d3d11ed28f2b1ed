import type { Clock } from "../ports/clock.ts";
import type { AuthEventMap, AuthEventName, AuthEvents, EventBase } from "./events.ts";
import type { RequestMeta } from "./request-meta.ts";

/** An event's own fields: everything but the request fields `emit` adds. */
type EventFields<K extends AuthEventName> = Omit<AuthEventMap[K], keyof EventBase>;

const NOTHING: Promise<void> = Promise.resolve();

/**
 * Emits `name` with the request fields added: `at` (now by the context's clock, unless given), `ip` and
 * `userAgent` from `meta`. Emits through `ctx.events`, so inside `inTransaction` the event waits for the commit.
 *
 * @example
 * await emit(ctx, "UserSignedIn", { userId: user.id, method: "password" }, meta);
 */
export function emit<K extends AuthEventName>(
  ctx: { readonly events: AuthEvents; readonly clock: Clock },
  name: K,
  fields: EventFields<K>,
  meta: RequestMeta,
  at?: Date,
): Promise<void> {
  // No listener: the event is not built (nor its timestamp read).
  if (!ctx.events.listens(name)) return NOTHING;
  return ctx.events.emit(name, {
    ...fields,
    at: at ?? new Date(ctx.clock.now()),
    ip: meta.ip,
    userAgent: meta.userAgent,
  } as AuthEventMap[K]);
}
