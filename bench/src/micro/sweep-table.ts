// The pure parts of the sweep benchmark (sweep-event-loop.ts): which rows each swept kind seeds, the command line,
// and the markdown table the docs quote.
import type { SweepReport } from "@latchkey/core";
import type { Row } from "../scale/seed.ts";

/** The stores the sweep benchmark runs on. */
export const SWEEP_STORES = ["libsql", "postgres"] as const;
export type SweepStore = (typeof SWEEP_STORES)[number];

/** Every kind of row `auth.api.sweep()` removes in batches, by its `SweepReport` field. */
export const SWEEP_KINDS = [
  "sessions",
  "verifications",
  "apiKeys",
  "apiKeyRerolls",
  "counters",
  "auditEvents",
] as const;
export type SweepKind = (typeof SWEEP_KINDS)[number] & keyof SweepReport;

/** What each kind is, in the table. */
export const KIND_LABELS: Record<SweepKind, string> = {
  sessions: "expired sessions",
  verifications: "expired codes and link tokens",
  apiKeys: "expired API keys",
  apiKeyRerolls: "rerolled API-key values past their grace",
  counters: "ended counters",
  auditEvents: "audit rows past retention",
};

/** The one user every seeded session, key and audit row belongs to. */
export const SWEEP_USER_ID = "sweep-user";

const DAY_MS = 86_400_000;

/**
 * Rows `from`..`to - 1` of one kind, all past their life at `now`: expired a day ago, or (audit rows) 100 days old,
 * past `auditLog()`'s default retention of 90 days. Unique columns differ per row.
 */
export function sweepRows(kind: SweepKind, from: number, to: number, now: number): Row[] {
  const past = new Date(now - DAY_MS);
  const rows: Row[] = [];
  for (let i = from; i < to; i++) rows.push(sweepRow(kind, i, past, now));
  return rows;
}

function sweepRow(kind: SweepKind, i: number, past: Date, now: number): Row {
  switch (kind) {
    case "sessions":
      return {
        id: `session-${i}`,
        userId: SWEEP_USER_ID,
        tokenHash: `session-hash-${i}`,
        expiresAt: past,
        createdAt: past,
        updatedAt: past,
        ip: null,
        userAgent: null,
        rememberMe: true,
        impersonatedBy: null,
      };
    case "verifications":
      return {
        id: `verification-${i}`,
        identifier: `email-otp:user-${i}@example.com`,
        valueHash: `verification-hash-${i}`,
        attemptCount: 0,
        expiresAt: past,
        createdAt: past,
        userId: null,
        payload: null,
      };
    case "counters":
      return { key: `rate:sign-in:10.0.${i >> 8}.${i & 255}`, count: 1, resetAt: past.getTime() };
    case "auditEvents":
      return {
        id: `audit-${i}`,
        type: "UserSignedIn",
        userId: SWEEP_USER_ID,
        identifier: null,
        ip: null,
        userAgent: null,
        at: new Date(now - 100 * DAY_MS),
        data: { method: "password" },
      };
    case "apiKeys":
    case "apiKeyRerolls": {
      const rerolled = kind === "apiKeyRerolls";
      return {
        id: `key-${i}`,
        userId: SWEEP_USER_ID,
        name: null,
        prefix: "lk_",
        start: "lk_abcdef",
        keyHash: `key-hash-${i}`,
        enabled: true,
        locked: false,
        metadata: {},
        serverMetadata: {},
        permissions: {},
        remaining: null,
        refillAmount: null,
        refillIntervalMs: null,
        lastRefillAt: null,
        previousKeyHash: rerolled ? `key-previous-hash-${i}` : null,
        previousKeyExpiresAt: rerolled ? past : null,
        rerolledAt: rerolled ? past : null,
        rateLimitMax: null,
        rateLimitWindowMs: null,
        requestCount: 0,
        windowStart: null,
        lastUsedAt: null,
        expiresAt: rerolled ? null : past,
        createdAt: past,
        updatedAt: past,
      };
    }
  }
}

/** The command line: `--n=100000 --store=libsql,postgres --kind=sessions,... [--batch-size=1000] --audit-log=off`. */
export interface SweepBenchArgs {
  n: number;
  stores: SweepStore[];
  kinds: SweepKind[];
  /** `--batch-size`; null: each store's own default (`Store.sweepBatchSize`, else 1,000). */
  batchSize: number | null;
  /** `auditLog()` installed for every kind: each expired key swept then writes an audit row (`ApiKeyRevoked`). */
  auditLog: boolean;
}

function listOf<T extends string>(value: string | undefined, all: readonly T[], flag: string): T[] {
  if (value === undefined) return [...all];
  const picked = value.split(",").map((s) => s.trim());
  for (const p of picked)
    if (!(all as readonly string[]).includes(p)) throw new Error(`--${flag}=${p}: expected one of ${all.join(", ")}`);
  return picked as T[];
}

function positiveInteger(value: string | undefined, fallback: number, flag: string, max: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${flag}=${value}: expected an integer 1..${max}`);
  return n;
}

/** Parses `--name=value` arguments; throws on an unknown flag or value. */
export function parseSweepArgs(argv: readonly string[]): SweepBenchArgs {
  const args = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)=(.*)$/.exec(arg);
    if (!match?.[1] || match[2] === undefined) throw new Error(`unexpected argument ${arg}`);
    if (!["n", "store", "kind", "batch-size", "audit-log"].includes(match[1]))
      throw new Error(`unknown flag --${match[1]}`);
    args.set(match[1], match[2]);
  }
  return {
    n: positiveInteger(args.get("n"), 100_000, "n", 10_000_000),
    stores: listOf(args.get("store"), SWEEP_STORES, "store"),
    kinds: listOf(args.get("kind"), SWEEP_KINDS, "kind"),
    batchSize: args.has("batch-size") ? positiveInteger(args.get("batch-size"), 1000, "batch-size", 10_000) : null,
    auditLog: listOf(args.get("audit-log") ?? "off", ["on", "off"], "audit-log")[0] === "on",
  };
}

/** One measured sweep of one kind on one store (`idle`: nothing runs, the machine's noise floor). */
export interface SweepMeasurement {
  store: SweepStore;
  kind: SweepKind | "idle";
  /** `"one statement"` (the store port without a limit) or `"auth.api.sweep()"`. */
  method: string;
  removed: number;
  wallMs: number;
  /** `monitorEventLoopDelay`'s maximum, ms. */
  histogramMaxMs: number;
  /** How late a 5 ms interval ran at worst, ms. */
  intervalLateMs: number;
  /**
   * The worst lateness of the 5 ms interval that this process's own CPU time accounts for (per gap, the smaller of
   * the lateness and the CPU the process used in it), ms: on a loaded machine the rest is time the process waited
   * for a core.
   */
  ownCpuLateMs: number;
}

const STORE_LABELS: Record<SweepStore, string> = { libsql: "libSQL", postgres: "PostgreSQL" };

const ms = (value: number) => (value >= 10 ? value.toFixed(0) : value.toFixed(1));

/**
 * The figures as a markdown table, one row per measurement in the order given. The worst delay is the larger of
 * the two witnesses (the histogram can miss a block that starts in the tick it was enabled).
 */
export function sweepTable(measurements: readonly SweepMeasurement[]): string {
  const lines = [
    "| store | rows swept | how | removed | wall ms | worst event-loop delay ms (histogram / 5 ms interval) | of it, own CPU ms |",
    "|---|---|---|---:|---:|---:|---:|",
  ];
  for (const m of measurements) {
    const worst = Math.max(m.histogramMaxMs, m.intervalLateMs);
    const kind = m.kind === "idle" ? "nothing (the noise floor)" : KIND_LABELS[m.kind];
    const removed = m.kind === "idle" ? "" : m.removed.toLocaleString("en-US");
    lines.push(
      `| ${STORE_LABELS[m.store]} | ${kind} | ${m.method} | ${removed} | ${ms(m.wallMs)} | **${ms(worst)}** (${ms(m.histogramMaxMs)} / ${ms(m.intervalLateMs)}) | ${ms(m.ownCpuLateMs)} |`,
    );
  }
  return lines.join("\n");
}
