import Database from "libsql";
import pg from "pg";
import {
  betterAuthApiKey,
  betterAuthApiKeyId,
  betterAuthSessionToken,
  betterAuthUserId,
  latchkeyApiKey,
  latchkeyApiKeyId,
  latchkeySessionToken,
  latchkeyUserId,
  seedEmail,
  sha256url,
} from "./rows.ts";
import type { SeedTarget } from "./seed.ts";

/**
 * The hot statements of each library, written out with the columns and conditions each one uses (Latchkey's from
 * its drizzle-store; Better Auth's from what its adapters send for the same operation), with real values of the
 * seeded rows. Their plans go into the scale run's report (bench/README.md, "Scale"): every hot lookup must be an index search, never a scan.
 */
export interface HotStatement {
  name: string;
  /** `?` placeholders in order; PostgreSQL gets them as $1.. */
  sql: string;
  params: (now: number, dialect: "sqlite" | "postgres") => unknown[];
  /** A write: planned but, on PostgreSQL, run inside a rolled-back transaction. */
  write?: boolean;
  /** The PostgreSQL text when it differs (`collate "C"` keys of the admin list). */
  postgres?: string;
}

const at = (now: number, dialect: "sqlite" | "postgres") => (dialect === "sqlite" ? now : new Date(now).toISOString());
/** Better Auth's dates on either store: ISO text on SQLite (its Kysely adapter's encoding), timestamptz from ISO. */
const iso = (now: number) => new Date(now).toISOString();

export const LATCHKEY: HotStatement[] = [
  {
    name: "get-session / token: session + user by token hash",
    sql: 'select * from "sessions" inner join "users" on "users"."id" = "sessions"."user_id" where "sessions"."token_hash" = ? limit 1',
    params: () => [sha256url(latchkeySessionToken(7))],
  },
  {
    name: "API-key verify: key by hash",
    sql: 'select * from "api_keys" where "api_keys"."key_hash" = ? limit 1',
    params: () => [sha256url(latchkeyApiKey(3))],
  },
  {
    name: "API-key verify (quota): consumeUse, one conditional UPDATE ... RETURNING",
    sql: 'update "api_keys" set "remaining" = "remaining" - 1, "last_used_at" = ? where "api_keys"."id" = ? and "enabled" = true and ("expires_at" is null or "expires_at" > ?) and ("remaining" is null or "remaining" > 0) returning *',
    params: (now, d) => [at(now, d), latchkeyApiKeyId(3), at(now, d)],
    write: true,
  },
  {
    name: "OTP sign-in: user by email",
    sql: 'select * from "users" where "users"."email" = ? limit 1',
    params: () => [seedEmail("lk", 12)],
  },
  {
    name: "OTP sign-in: code by identifier",
    sql: 'select * from "verifications" where "verifications"."identifier" = ? limit 1',
    params: () => ["otp:sign-in:someone@bench.test"],
  },
  {
    name: "API-key sweep: expired keys",
    sql: 'select "id", "user_id" from "api_keys" where "expires_at" is not null and "expires_at" <= ?',
    params: (now, d) => [at(now, d)],
  },
  {
    name: "/api-key/delete-all-expired: the caller's expired keys",
    sql: 'select "id" from "api_keys" where "expires_at" is not null and "expires_at" <= ? and "user_id" = ?',
    params: (now, d) => [at(now, d), latchkeyUserId(5)],
  },
  {
    name: "session sweep: expired sessions",
    sql: 'select "id" from "sessions" where "expires_at" <= ?',
    params: (now, d) => [at(now, d)],
  },
  {
    name: "audit log of one user, newest first",
    sql: 'select * from "audit_events" where "user_id" = ? order by "at" desc, "id" desc limit 21',
    params: () => [latchkeyUserId(5)],
  },
  {
    name: "admin list-users: a page, newest first",
    sql: 'select * from "users" order by "created_at" desc, "id" desc limit 21',
    params: () => [],
  },
  {
    name: "admin list-users: a page of an email prefix",
    sql: 'select * from "users" where "email" >= ? and "email" < ? order by "email", "id" limit 21',
    postgres:
      'select * from "users" where "email" collate "C" >= ? and "email" collate "C" < ? order by "email" collate "C", "id" limit 21',
    params: () => ["scale-lk-12", "scale-lk-12\u{10FFFF}"],
  },
  {
    name: "admin list-users: a page of a name prefix",
    sql: 'select * from "users" where lower("name") >= ? and lower("name") < ? order by lower("name"), "id" limit 21',
    postgres:
      'select * from "users" where lower("name") collate "C" >= ? and lower("name") collate "C" < ? order by lower("name") collate "C", "id" limit 21',
    params: () => ["seed user 12", "seed user 12\u{10FFFF}"],
  },
  {
    name: "admin list-users: the total of an email prefix",
    sql: 'select count(*) from "users" where "email" >= ? and "email" < ?',
    postgres: 'select count(*) from "users" where "email" collate "C" >= ? and "email" collate "C" < ?',
    params: () => ["scale-lk-12", "scale-lk-12\u{10FFFF}"],
  },
];

const BETTER_AUTH: HotStatement[] = [
  {
    name: "get-session / token: session by token",
    sql: 'select * from "session" where "token" = ? limit 1',
    params: () => [betterAuthSessionToken(7)],
  },
  {
    name: "get-session / token: its user by id",
    sql: 'select * from "user" where "id" = ? limit 1',
    params: () => [betterAuthUserId(7)],
  },
  {
    name: "API-key verify: key by hash",
    sql: 'select * from "apikey" where "key" = ? limit 1',
    params: () => [sha256url(betterAuthApiKey(3))],
  },
  {
    name: "API-key verify: update by id",
    sql: 'update "apikey" set "remaining" = "remaining" - 1, "lastRequest" = ? where "id" = ? returning *',
    params: (now) => [iso(now), betterAuthApiKeyId(3)],
    write: true,
  },
  {
    name: "OTP sign-in: user by email",
    sql: 'select * from "user" where "email" = ? limit 1',
    params: () => [seedEmail("ba", 12)],
  },
  {
    name: "OTP sign-in: code by identifier",
    sql: 'select * from "verification" where "identifier" = ? limit 1',
    params: () => ["sign-in-otp-someone@bench.test"],
  },
  {
    name: "API-key sweep: expired keys",
    sql: 'select "id" from "apikey" where "expiresAt" < ?',
    params: (now) => [iso(now)],
  },
];

const toPg = (text: string) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${(n += 1)}`);
};

export async function plansOn(target: SeedTarget, statements: HotStatement[], now: number): Promise<string[]> {
  const out: string[] = [];
  if (target.dialect === "sqlite") {
    const db = new Database(target.file, { readonly: true }) as unknown as {
      prepare(sql: string): { all(...v: unknown[]): Array<{ detail: string }> };
      close(): void;
    };
    try {
      for (const s of statements) {
        // EXPLAIN QUERY PLAN of an UPDATE plans it without running it.
        const rows = db
          .prepare(`explain query plan ${s.sql}`)
          .all(...s.params(now, "sqlite").map((v) => (typeof v === "boolean" ? Number(v) : v)));
        out.push(`${s.name}\n${rows.map((r) => `  ${r.detail}`).join("\n")}`);
      }
    } finally {
      db.close();
    }
    return out;
  }
  const client = new pg.Client({ connectionString: target.url });
  await client.connect();
  try {
    for (const s of statements) {
      await client.query("begin");
      try {
        const result = await client.query(
          `explain (analyze, buffers, costs off, summary off) ${toPg(s.postgres ?? s.sql)}`,
          s.params(now, "postgres"),
        );
        out.push(`${s.name}\n${result.rows.map((r: Record<string, string>) => `  ${r["QUERY PLAN"]}`).join("\n")}`);
      } finally {
        await client.query("rollback");
      }
    }
  } finally {
    await client.end();
  }
  return out;
}

/** The plans of both libraries' hot statements on their seeded databases, as one Markdown block per library. */
export async function explainHotStatements(
  latchkey: SeedTarget,
  betterAuth: SeedTarget,
  now = Date.now(),
): Promise<string> {
  const lk = await plansOn(latchkey, LATCHKEY, now);
  const ba = await plansOn(betterAuth, BETTER_AUTH, now);
  const kind =
    latchkey.dialect === "sqlite"
      ? "libSQL, EXPLAIN QUERY PLAN"
      : "PostgreSQL, EXPLAIN (ANALYZE, BUFFERS); writes rolled back";
  return [`Latchkey (${kind}):`, "```", ...lk, "```", "", `Better Auth (${kind}):`, "```", ...ba, "```"].join("\n");
}
