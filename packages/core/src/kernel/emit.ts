import type { Clock } from "../ports/clock.ts";
import type { AuthEventMap, AuthEventName, AuthEvents, EventBase } from "./events.ts";
import type { RequestMeta } from "./request-meta.ts";

/** An event's own fields: everything but the request fields `emit` adds. */
type EventFields<K extends AuthEventName> = Omit<AuthEventMap[K], keyof EventBase>;

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
  at: Date = new Date(ctx.clock.now()),
): Promise<void> {
  return ctx.events.emit(name, { ...fields, at, ip: meta.ip, userAgent: meta.userAgent } as AuthEventMap[K]);
}
