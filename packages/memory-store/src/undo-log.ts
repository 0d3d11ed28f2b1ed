import type { MemoryDatabase } from "./database.ts";
import { Table } from "./table.ts";

const ABSENT: unique symbol = Symbol("absent");

/** One write a transaction made: the map, the key, what was there before and what the write left. */
interface UndoEntry {
  map: Map<unknown, unknown>;
  key: unknown;
  before: unknown;
  after: unknown;
}

/**
 * The writes of one transaction, newest last. `undo` takes back only those writes, newest first, and only where
 * the entry still holds what this transaction wrote: a row another request changed or deleted meanwhile keeps
 * that request's state (a session it signed out stays signed out, a token it consumed stays consumed).
 */
export class UndoLog {
  private readonly entries: UndoEntry[] = [];

  /**
   * A view of `map` whose `set` and `delete` record the previous value here before writing through. A `Table`
   * stays a `Table` (its lookups are bound to it), and its indexes follow every write, the undo's included.
   */
  track<M extends Map<unknown, unknown>>(map: M): M {
    const entries = this.entries;
    const untyped: Map<unknown, unknown> = map;
    const view: M = new Proxy(map, {
      get(target, property) {
        if (property === "set")
          return (key: unknown, value: unknown) => {
            entries.push({ map: untyped, key, before: target.has(key) ? target.get(key) : ABSENT, after: value });
            target.set(key, value);
            return view;
          };
        if (property === "delete")
          return (key: unknown) => {
            if (!target.has(key)) return false;
            entries.push({ map: untyped, key, before: target.get(key), after: ABSENT });
            return target.delete(key);
          };
        if (property === "clear") throw new Error("a transaction cannot clear a whole table");
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    return view;
  }

  /** Takes back this transaction's writes, newest first; O(writes), whatever the size of the store. */
  undo(): void {
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const { map, key, before, after } = this.entries[i]!;
      const now = map.has(key) ? map.get(key) : ABSENT;
      if (now !== after) continue; // changed by someone else since: theirs stands
      if (before === ABSENT) map.delete(key);
      // A row whose unique key another request has taken since (a newer code for the same identifier) stays
      // gone: theirs stands there too, and the old code does not come back beside it.
      else {
        const table = map instanceof Table ? (map as Table<unknown, string>) : null;
        if (table === null || table.restorable(key as string, before)) map.set(key, before);
      }
    }
    this.entries.length = 0;
  }
}

/**
 * The database as one transaction sees it: the same maps, with every write of the tables a rollback restores
 * recorded in `log`. Counters and audit rows are not part of it (counters count attempts whatever happens;
 * events are emitted after a commit). The secondary indexes of the `Table`s (by user, identifier, value hash) are
 * not logged apart: they are a function of the rows, kept by the table's own `set` and `delete`, which the undo
 * calls too, so a rollback restores them with the rows, entry for entry.
 */
export function trackedDatabase(db: MemoryDatabase, log: UndoLog): MemoryDatabase {
  return {
    ...db,
    users: log.track(db.users),
    emails: log.track(db.emails),
    usernames: log.track(db.usernames),
    sessions: log.track(db.sessions),
    sessionsByHash: log.track(db.sessionsByHash),
    accounts: log.track(db.accounts),
    verifications: log.track(db.verifications),
    apiKeys: log.track(db.apiKeys),
    apiKeysByHash: log.track(db.apiKeysByHash),
    jwks: log.track(db.jwks),
    twoFactor: log.track(db.twoFactor),
    passkeys: log.track(db.passkeys),
    organizations: log.track(db.organizations),
    members: log.track(db.members),
    invitations: log.track(db.invitations),
  };
}
