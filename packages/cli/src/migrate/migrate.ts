import { migrateLocalD1 } from "./d1.ts";

/**
 * Options of `migrate`.
 *
 * @example
 * import type { MigrateOptions } from "@latchkey/cli";
 * const options: MigrateOptions = { log: console.log };
 */
export interface MigrateOptions {
  /** Told each step as it happens (what was applied, or that nothing was). */
  log?: (line: string) => void;
}

/** The migrator `@latchkey/mongo-store` exports. */
export type MongoMigrator = (url: string, options: { log: (line: string) => void }) => Promise<string[]>;

const MONGO_STORE = "@latchkey/mongo-store";

/** Loads `@latchkey/mongo-store` on demand: only `mongodb://` URLs pay for the MongoDB driver. */
export const importMongoStore = (): Promise<unknown> => import("@latchkey/mongo-store");

/** Which store family a database URL belongs to, or null for any other URL. */
export function databaseKind(url: string): "postgres" | "sqlite" | "mongodb" | null {
  if (/^postgres(ql)?:\/\//i.test(url)) return "postgres";
  if (/^(file|libsql):/i.test(url)) return "sqlite";
  if (/^mongodb(\+srv)?:\/\//i.test(url)) return "mongodb";
  return null;
}

// Query parameters whose value is a credential (compared case-insensitively): masked wherever they appear.
const SECRET_PARAMETERS =
  /^(password|passwd|pass|pwd|sslpassword|authtoken|auth_token|token|access_token|secret|apikey|api_key)$/i;

/** `scheme://` and the rest of a URL, or null for text that is not a `scheme://` URL (a keyword DSN, `file:`). */
function splitScheme(url: string): { scheme: string; rest: string } | null {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0];
  return scheme === undefined ? null : { scheme, rest: url.slice(scheme.length) };
}

/**
 * Where the user-info of `rest` (a URL after its `scheme://`) ends: its last `@`, or -1 without one. Not at the
 * first `/`, `?` or `#` as a URL parser would have it: drivers take a password such as `S3c/ret` unencoded
 * (`postgres://admin:S3c/ret@host/db`), and masking up to an `@` of a path or query only hides more.
 */
const userinfoEnd = (rest: string) => rest.lastIndexOf("@");

// A keyword DSN's (`host=db user=app password=S3cret`, libpq's form) credential: the value, quoted or not.
const KEYWORD_SECRET = /(^|\s)([a-z_]+)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s']*)/gi;

/** The user-info password and the credential parameters of a URL or keyword DSN: what must never be printed. */
function urlSecrets(url: string): { userinfoPassword: string | null; parameters: string[] } {
  const parts = splitScheme(url);
  const parameters: string[] = [];
  if (parts === null) {
    for (const [, , name, , value] of url.matchAll(KEYWORD_SECRET))
      if (SECRET_PARAMETERS.test(name ?? "") && value) parameters.push(value.replace(/^'(.*)'$/s, "$1"), value);
  }
  const at = parts === null ? -1 : userinfoEnd(parts.rest);
  const userinfo = parts !== null && at >= 0 ? parts.rest.slice(0, at) : "";
  const colon = userinfo.indexOf(":");
  const query = /\?([^#]*)/.exec(parts === null || at < 0 ? url : parts.rest.slice(at))?.[1] ?? "";
  for (const pair of query.split("&")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && SECRET_PARAMETERS.test(safeDecode(pair.slice(0, eq))) && pair.length > eq + 1)
      parameters.push(pair.slice(eq + 1));
  }
  return { userinfoPassword: colon >= 0 && colon < userinfo.length - 1 ? userinfo.slice(colon + 1) : null, parameters };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The URL with its user-info password and credential parameters (`password`, `authToken`, ...) masked, for
 * printing; a keyword DSN (`host=db password=S3cret`) with its `password=` (and the other credential keywords)
 * masked. A plain parser, not `new URL`: multi-host URLs (`mongodb://admin:pw@db1,db2/app`), passwords holding `/`,
 * `?`, `#` or `@` and unusual forms are masked too instead of printed unchanged.
 *
 * @example
 * redactUrl("mongodb://admin:S3cret@db1,db2/app?authSource=admin"); // "mongodb://admin:***@db1,db2/app?authSource=admin"
 * redactUrl("postgres://admin:S3c/ret@host/db");                    // "postgres://admin:***@host/db"
 * redactUrl("postgres://db/auth?user=app&password=S3cret");         // "postgres://db/auth?user=app&password=***"
 * redactUrl("host=db user=app password='S3 cret'");                 // "host=db user=app password=***"
 */
export function redactUrl(url: string): string {
  const parts = splitScheme(url);
  if (parts === null && !/^[a-z][a-z0-9+.-]*:/i.test(url)) {
    return url.replace(KEYWORD_SECRET, (pair, space: string, name: string, equals: string, value: string) =>
      SECRET_PARAMETERS.test(name) && value !== "" ? `${space}${name}${equals}***` : pair,
    );
  }
  let out = url;
  let tail = url;
  if (parts !== null) {
    const at = userinfoEnd(parts.rest);
    if (at >= 0) {
      const userinfo = parts.rest.slice(0, at);
      const colon = userinfo.indexOf(":");
      const masked = colon >= 0 ? `${userinfo.slice(0, colon)}:***` : userinfo;
      tail = parts.rest.slice(at);
      out = `${parts.scheme}${masked}${tail}`;
    }
  }
  // Credential parameters of the query: after the user-info, whose masked text may hold `?` or `&`.
  const head = out.slice(0, out.length - tail.length);
  return (
    head +
    tail.replace(/([?&])([^=&#]+)=([^&#]*)/g, (pair, separator: string, name: string, value: string) =>
      SECRET_PARAMETERS.test(safeDecode(name)) && value !== "" ? `${separator}${name}=***` : pair,
    )
  );
}

/** `text` (an error message) with every secret of `url` masked, in case a driver quoted the URL or a part of it. */
export function redactSecretsIn(text: string, url: string): string {
  const { userinfoPassword, parameters } = urlSecrets(url);
  let out = text.split(url).join(redactUrl(url));
  for (const secret of [userinfoPassword, ...parameters]) {
    if (!secret) continue;
    for (const form of new Set([secret, safeDecode(secret)])) out = out.split(form).join("***");
  }
  return out;
}

function isMissingPackage(error: unknown, name: string): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  const missing =
    code === "ERR_MODULE_NOT_FOUND" || /cannot find (package|module)|failed to (load|resolve)/i.test(error.message);
  return missing && error.message.includes(name);
}

/** Loads `migrateMongo` from `@latchkey/mongo-store`, with an error that says what to install when it is absent. */
export async function loadMongoMigrator(importStore: () => Promise<unknown>): Promise<MongoMigrator> {
  let loaded: unknown;
  try {
    loaded = await importStore();
  } catch (error) {
    if (!isMissingPackage(error, MONGO_STORE)) throw error;
    throw new Error(
      `mongodb:// databases are migrated by ${MONGO_STORE}, which is not installed: add it next to @latchkey/cli`,
      { cause: error },
    );
  }
  const migrateMongo = (loaded as { migrateMongo?: unknown } | null)?.migrateMongo;
  if (typeof migrateMongo !== "function") throw new Error(`${MONGO_STORE} does not export migrateMongo(url, { log })`);
  return migrateMongo as MongoMigrator;
}

/**
 * Applies Latchkey's schema migrations to the database at `url` (`postgres://`, `postgresql://`, `file:`,
 * `libsql://` through `@latchkey/drizzle-store`; `mongodb://` through `@latchkey/mongo-store`). Idempotent:
 * resolves to what it applied, which is nothing on a second run.
 *
 * @example
 * import { migrate } from "@latchkey/cli";
 * await migrate("postgres://localhost/app", { log: console.log }); // ["0000_initial"]
 */
export function migrate(url: string, options: MigrateOptions = {}): Promise<string[]> {
  return migrateWith(url, options, importMongoStore);
}

/** `migrate` with the loading of `@latchkey/mongo-store` passed in (tests hand in a stand-in). */
export async function migrateWith(
  url: string,
  options: MigrateOptions,
  importStore: () => Promise<unknown>,
): Promise<string[]> {
  const log = options.log ?? (() => undefined);
  const kind = databaseKind(url);
  if (kind === "mongodb") return (await loadMongoMigrator(importStore))(url, { log });
  if (kind === null)
    throw new TypeError(
      `unsupported database URL ${redactUrl(url)}: expected postgres://, postgresql://, file:, libsql:// or mongodb://`,
    );
  // Loaded on demand: `latchkey secret` should not pay for database drivers, and each dialect loads only its own.
  const { migrateDatabase } = await import("@latchkey/drizzle-store");
  const driver = kind === "postgres" ? "pg" : "@libsql/client";
  try {
    return await migrateDatabase(url, { log });
  } catch (error) {
    if (!isMissingPackage(error, driver)) throw error;
    throw new Error(
      `${kind === "postgres" ? "PostgreSQL" : "SQLite/libSQL"} databases need the ${driver} driver, which is not installed: npm install ${driver}`,
      { cause: error },
    );
  }
}

const USAGE = `Usage: latchkey migrate --database <url>   (postgres://, postgresql://, file:, libsql://, mongodb://)
       LATCHKEY_DATABASE_URL=<url> latchkey migrate   (the same, kept out of ps and shell history)
       latchkey migrate --d1 <local-id> [--persist-to <dir>] [--migrations-table <name>]
                        (the local D1 of wrangler dev; remote D1: wrangler d1 migrations apply <name> --remote)\n`;

/**
 * `latchkey migrate --database <url>` or `latchkey migrate --d1 <local-id>`: prints each step; exit code 0 on
 * success, 1 on failure, 2 on bad usage.
 *
 * @example
 * process.exitCode = await migrateCommand(["--database", "file:./auth.db"]);
 */
export async function migrateCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
): Promise<number> {
  const d1 = argument(args, "d1");
  // The environment keeps the URL (and its password) out of `ps` and the shell history; a flag wins over it.
  const url = argument(args, "database") ?? (d1 === null ? env.LATCHKEY_DATABASE_URL || null : null);
  if ((url === null) === (d1 === null) || (url !== null && databaseKind(url) === null)) {
    if (url !== null && d1 === null)
      process.stderr.write(`latchkey migrate: unsupported database URL ${redactUrl(url)}\n`);
    process.stderr.write(USAGE);
    return 2;
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  try {
    if (d1 !== null) {
      const persistTo = argument(args, "persist-to") ?? ".wrangler/state";
      const table = argument(args, "migrations-table");
      process.stdout.write(`Migrating local D1 ${d1} in ${persistTo}\n`);
      await migrateLocalD1(d1, { persistTo, log, ...(table === null ? {} : { table }) });
      return 0;
    }
    process.stdout.write(`Migrating ${redactUrl(url!)}\n`);
    await migrate(url!, { log });
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`latchkey migrate: ${url === null ? message : redactSecretsIn(message, url)}\n`);
    return 1;
  }
}

function argument(args: string[], name: string): string | null {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg.startsWith(`--${name}=`)) return arg.slice(`--${name}=`.length) || null;
    if (arg === `--${name}`) return args[i + 1] ?? null;
  }
  return null;
}
