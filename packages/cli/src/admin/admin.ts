import { applyBan, rolesOf, type FullStore, type UserRecord } from "@latchkey/core";
import { parseDuration } from "@latchkey/core/internal";
import { databaseKind, redactSecretsIn, redactUrl } from "../migrate/migrate.ts";
import { argument, cachePublisher, DATABASE_URL_VARIABLE, openStore } from "../sweep/sweep.ts";

const USAGE = `Usage: latchkey admin <find|ban|unban|make-admin> [--database <url>] ...
  find        --email <prefix> | --name <prefix>    up to 20 users, with their roles and bans
  ban         --email <address> [--reason <text>] [--for <duration>]
              every session ends and every API key is disabled, on every instance (PostgreSQL carries the news)
  unban       --email <address>
  make-admin  --email <address> [--role <role>]    adds the role (default "admin") to appMetadata.role
  The URL defaults to $${DATABASE_URL_VARIABLE}. Durations: "12h", "7d", "2w" or seconds.\n`;

type Out = (line: string) => void;

async function byEmail(store: FullStore, email: string | null): Promise<UserRecord> {
  if (email === null) throw new UsageError("--email is required");
  const user = await store.users.findByEmail(email.trim().toLowerCase());
  if (!user) throw new Error(`no user with the email ${email}`);
  return user;
}

class UsageError extends Error {}

const line = (u: UserRecord) => {
  const roles = rolesOf(u);
  const ban = u.banned ? ` banned${u.banExpires ? ` until ${u.banExpires.toISOString()}` : ""}` : "";
  return `${u.id}  ${u.email}${u.name ? `  ${u.name}` : ""}${roles.length ? `  [${roles.join(",")}]` : ""}${ban}`;
};

async function run(store: FullStore, action: string, args: string[], out: Out): Promise<void> {
  const publish = cachePublisher(store, "admin");
  const now = new Date();
  if (action === "find") {
    const email = argument(args, "email");
    const name = argument(args, "name");
    const search =
      email !== null
        ? { field: "email" as const, prefix: email.trim().toLowerCase() }
        : name !== null
          ? { field: "name" as const, prefix: name.trim().toLowerCase() }
          : null;
    if (search === null) throw new UsageError("find needs --email <prefix> or --name <prefix>");
    const [page, total] = await Promise.all([
      store.users.listPage({ search, limit: 20, cursor: null }),
      store.users.count(search),
    ]);
    for (const u of page.items) out(line(u));
    out(
      `${total} user${total === 1 ? "" : "s"}${total > page.items.length ? ` (first ${page.items.length} shown)` : ""}`,
    );
    return;
  }
  const user = await byEmail(store, argument(args, "email"));
  if (action === "ban") {
    const span = argument(args, "for");
    const ms = span === null ? null : parseDuration(/^\d+$/.test(span) ? Number(span) : (span as "1d"), "--for");
    const outcome = await applyBan(
      store,
      user.id,
      { reason: argument(args, "reason"), expires: ms === null ? null : new Date(now.getTime() + ms) },
      now,
    );
    if (!outcome) throw new Error(`the user ${user.email} is gone`);
    // The user's entries, and each impersonation they had started as an admin (other users' sessions).
    await publish([
      { kind: "user", id: user.id },
      ...outcome.impersonations.map((s) => ({ kind: "session" as const, id: s.id })),
    ]);
    out(`banned ${line(outcome.user)}: ${outcome.revoked} session(s) ended, ${outcome.disabled} key(s) disabled`);
    return;
  }
  if (action === "unban") {
    const updated = await store.users.update(user.id, {
      banned: false,
      banReason: null,
      banExpires: null,
      updatedAt: now,
    });
    if (!updated?.ok) throw new Error(`the user ${user.email} is gone`);
    out(`unbanned ${line(updated.value)}`);
    return;
  }
  if (action === "make-admin") {
    const role = argument(args, "role") ?? "admin";
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(role)) throw new UsageError("--role must be letters, digits, _ and -");
    const roles = [...new Set([...rolesOf(user), role])];
    const appMetadata = { ...user.appMetadata, role: roles.length === 1 ? roles[0]! : roles };
    const updated = await store.users.update(user.id, { appMetadata, updatedAt: now });
    if (!updated?.ok) throw new Error(`the user ${user.email} is gone`);
    await publish([{ kind: "user", id: user.id }]);
    out(`${line(updated.value)}`);
    return;
  }
  throw new UsageError(`unknown action ${action}`);
}

/**
 * `latchkey admin`: find users, ban, unban, make an admin, straight in the database (no running server needed; the
 * first admin of a deployment is made this way). Exit code 0 on success, 1 on failure, 2 on bad usage.
 *
 * @example
 * process.exitCode = await adminCommand(["make-admin", "--email", "ada@example.com", "--database", "file:./auth.db"]);
 */
export async function adminCommand(
  args: string[],
  env: Record<string, string | undefined> = process.env,
  out: Out = (text) => process.stdout.write(`${text}\n`),
): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined || action === "--help" || action === "-h" || rest.includes("--help")) {
    process.stdout.write(USAGE);
    return action === undefined ? 2 : 0;
  }
  const url = argument(rest, "database") ?? (env[DATABASE_URL_VARIABLE] || null);
  if (url === null || databaseKind(url) === null) {
    process.stderr.write(
      url === null
        ? `latchkey admin: no database: pass --database <url> or set ${DATABASE_URL_VARIABLE}\n`
        : `latchkey admin: unsupported database URL ${redactUrl(url)}\n`,
    );
    return 2;
  }
  let store: FullStore | null = null;
  try {
    store = await openStore(url);
    await run(store, action, rest, out);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`latchkey admin: ${redactSecretsIn(message, url)}\n`);
    if (error instanceof UsageError) {
      process.stderr.write(USAGE);
      return 2;
    }
    return 1;
  } finally {
    await store?.close();
  }
}
