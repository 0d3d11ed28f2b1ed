import type { ClientSession, Document, MongoClient } from "mongodb";

/** Database used when neither `dbName` nor the connection string names one. */
const DEFAULT_DB_NAME = "latchkey";

/** The database named in a `mongodb://` or `mongodb+srv://` connection string's path, or null. */
export function databaseNameFromUrl(url: string): string | null {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?#]*\/([^?#]*)/i.exec(url);
  const name = match?.[1] ? decodeURIComponent(match[1]) : "";
  return name === "" ? null : name;
}

/** `dbName` if given, else the connection string's database, else `latchkey`. */
export function resolveDatabaseName(url: string | null, dbName: string | undefined): string {
  return dbName ?? (url === null ? null : databaseNameFromUrl(url)) ?? DEFAULT_DB_NAME;
}

/**
 * True when a `hello` reply comes from a deployment that runs multi-document transactions: a replica-set member
 * (it reports `setName`) or a sharded cluster's router (`msg: "isdbgrid"`). A standalone server does not.
 */
export function supportsTransactions(hello: Document): boolean {
  return typeof hello.setName === "string" || hello.msg === "isdbgrid";
}

/** Runs multi-document work in a transaction when the deployment has them. */
export interface Transactions {
  /** Whether `run` may be used; asked once per store (a failed probe is asked again next time). */
  available(): Promise<boolean>;
  /** Runs `work` in one transaction; the driver retries it on transient errors, so it must be re-runnable. */
  run<T>(work: (session: ClientSession) => Promise<T>): Promise<T>;
}

/** `forced` overrides detection (tests use `false` to exercise the compensating path on a replica set). */
export function transactionsFor(client: MongoClient, forced: boolean | undefined): Transactions {
  let probe: Promise<boolean> | null = forced === undefined ? null : Promise.resolve(forced);
  return {
    available() {
      probe ??= client
        .db("admin")
        .command({ hello: 1 })
        .then(supportsTransactions, (error: unknown) => {
          probe = null;
          throw error;
        });
      return probe;
    },
    run(work) {
      return client.withSession((session) => session.withTransaction(() => work(session)));
    },
  };
}
