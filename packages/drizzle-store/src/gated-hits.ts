import type { CounterStore } from "@latchkey/core";

type HitGated = NonNullable<CounterStore["hitGated"]>;

/**
 * The placeholders of a SQL store's `hitGated` statement (PostgreSQL and SQLite name them alike); a type, not an
 * interface, so that it is a `Record<string, unknown>` as drizzle's prepared statements take their values.
 */
export type GatedValues = {
  gateKey: string;
  gateResetAt: number;
  nextKey: string;
  nextResetAt: number;
  max: number;
  now: number;
};

/** A counter row as a `hitGated` statement answers it: one per key it hit. */
export interface GatedRow {
  key: string;
  count: number;
  resetAt: number;
}

/**
 * `hitGated` over one statement that hits both counters (the second only while the gate admits) and answers the
 * rows it hit; the SQL stores share the placeholders and the reading of the answer.
 *
 * @example
 * hitGated: gatedHitsOver((values) => statement.execute(values)),
 */
export function gatedHitsOver(run: (values: GatedValues) => Promise<GatedRow[]>): HitGated {
  return async (gate, next, now) => {
    const rows = await run({
      gateKey: gate.key,
      gateResetAt: now + gate.windowMs,
      nextKey: next.key,
      nextResetAt: now + next.windowMs,
      max: gate.max,
      now,
    });
    const stateOf = (key: string) => {
      const row = rows.find((r) => r.key === key);
      return row ? { count: row.count, resetAt: row.resetAt } : null;
    };
    return { gate: stateOf(gate.key)!, next: stateOf(next.key) };
  };
}
