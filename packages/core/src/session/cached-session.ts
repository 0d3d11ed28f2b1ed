import type { SessionRecord, UserRecord } from "../ports/records.ts";
import { toSessionView, toUserView, type SessionView, type UserView, type ValidatedSession } from "./views.ts";

/**
 * A live session the lookup cache held, as `SessionService.validateCached` answers it: the views of its entry and
 * the JSON of `{ user, session }`, made once per cache entry and shared by every request that reads it. Nothing in
 * it may be changed: `ownCopy` gives a caller the `ValidatedSession` it may keep and change.
 */
export interface CachedSession {
  /** The user's view, shared: copy it (`ownCopy`) before handing it to anything that may change it. */
  readonly user: Readonly<UserView>;
  /** The session's view, shared likewise. */
  readonly session: Readonly<SessionView>;
  /** `JSON.stringify({ user, session })`: get-session's answer. */
  readonly json: string;
  /** The cache entry the views were made from. */
  readonly lookup: Readonly<{ session: SessionRecord; user: UserRecord }>;
}

// One WeakMap key per cache entry (few, long-lived); the answer's JSON rides on each request's result under a
// symbol (a weak key per request would cost every garbage collection an ephemeron to trace).
const viewsOfEntry = new WeakMap<object, CachedSession>();
export const ANSWER_JSON = Symbol("latchkey.answerJson");
export type WithAnswerJson = ValidatedSession & { [ANSWER_JSON]?: string };

/** The views of a cache entry (not slid: its own records), made on the first request that reads it. */
export function viewsOf(entry: { session: SessionRecord; user: UserRecord }): CachedSession {
  let views = viewsOfEntry.get(entry);
  if (views === undefined) {
    // Frozen: shared by every request that reads the entry, they are never handed out to be changed.
    const user = Object.freeze(toUserView(entry.user));
    const session = Object.freeze(toSessionView(entry.session));
    views = Object.freeze({ user, session, json: JSON.stringify({ user, session }), lookup: entry });
    viewsOfEntry.set(entry, views);
  }
  return views;
}

/**
 * `JSON.stringify({ user, session })` of a session `validate` answered from a cached lookup, computed once per cache
 * entry (the records of an entry never change; a slide, an update or a revocation drops the entry), or undefined:
 * then the caller serializes the views itself. get-session answers with it.
 */
export function sessionAnswerJson(validated: ValidatedSession): string | undefined {
  return (validated as WithAnswerJson)[ANSWER_JSON];
}
