import type { FullStore } from "@latchkey/core";
import { callLabel, instrumentStore, runAsFlow, type PortCall } from "./instrument.ts";

/** A flow stopped at a store call, waiting for the scheduler to let it run. */
export interface PendingStep {
  flow: string;
  /** `users.findByEmail`, or `transaction` for a whole transaction (one step). */
  label: string;
}

/** Picks which of the waiting flows runs next (an index into `waiting`, ordered as the flows were given). */
export type Chooser = (waiting: readonly PendingStep[], decision: number) => number;

/** The outcome of one interleaving. */
export interface ScheduleRun<R> {
  /** Each flow's result (or the error it threw), by flow name. */
  results: Record<string, { ok: true; value: R } | { ok: false; error: unknown }>;
  /** The steps in the order they ran: `flow:label`. */
  trace: string[];
  /** At each point where more than one flow was waiting: which was chosen and how many were waiting. */
  decisions: Array<{ chosen: number; options: number }>;
}

interface FlowState {
  name: string;
  state: "running" | "waiting" | "done";
  queue: Array<{ step: PendingStep; resolve: () => void }>;
}

/**
 * A deterministic scheduler over a store. `scheduler.store` is the wrapped store; `run(flows, choose)` starts the
 * flows together and lets exactly one of them run at a time from one store call to the next, so the order of
 * their store calls is exactly the order `choose` picks. A transaction is one step: the scheduler pauses between
 * statements and transactions, never inside a transaction (there the database's own isolation decides), so a
 * paused flow never holds a lock another flow waits for. Calls from outside a flow (the test's setup and checks)
 * pass straight through.
 *
 * @example
 * const s = createScheduler(memoryStore());
 * const auth = createTestAuth({ store: s.store });
 * const run = await s.run({ a: () => signIn(), b: () => reset() }, (waiting) => 0);
 */
export function createScheduler(inner: FullStore) {
  let active: Map<string, FlowState> | null = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  /** Store calls made by a flow after the run ended (background work the flow did not await). */
  const late: string[] = [];

  const gate = (flow: string | null, label: string, run: () => Promise<unknown>): Promise<unknown> => {
    const state = flow === null ? undefined : active?.get(flow);
    if (!state) {
      if (flow !== null && active === null) late.push(`${flow}:${label}`);
      return run();
    }
    return new Promise<void>((resolve) => {
      state.queue.push({ step: { flow: state.name, label }, resolve });
      state.state = "waiting";
      notify();
    }).then(() =>
      run().finally(() => {
        // A flow that issued several calls at once (Promise.all) waits on the next of them.
        if (state.queue.length > 0 && state.state === "running") {
          state.state = "waiting";
          notify();
        }
      }),
    );
  };

  const release = (state: FlowState) => {
    const next = state.queue.shift()!;
    state.state = "running";
    next.resolve();
    return next.step;
  };

  const store = instrumentStore(inner, {
    call: (c: PortCall, run) => (c.inTransaction ? run() : gate(c.flow, callLabel(c), run)),
    transaction: (flow, run) => gate(flow, "transaction", run),
  });

  async function run<R>(flows: Record<string, () => Promise<R>>, choose: Chooser): Promise<ScheduleRun<R>> {
    if (active) throw new Error("the scheduler runs one set of flows at a time");
    const states = new Map<string, FlowState>();
    for (const name of Object.keys(flows)) states.set(name, { name, state: "running", queue: [] });
    active = states;
    const results: ScheduleRun<R>["results"] = {};
    const trace: string[] = [];
    const decisions: ScheduleRun<R>["decisions"] = [];
    const idle = () => [...states.values()].every((f) => f.state !== "running");
    const settled = Object.entries(flows).map(([name, body]) =>
      runAsFlow(name, body)
        .then(
          (value) => {
            results[name] = { ok: true, value };
          },
          (error: unknown) => {
            results[name] = { ok: false, error };
          },
        )
        .finally(() => {
          const state = states.get(name)!;
          state.state = state.queue.length > 0 ? "waiting" : "done";
          notify();
        }),
    );
    try {
      for (;;) {
        while (!idle()) await new Promise<void>((resolve) => (wake = resolve));
        const waiting = [...states.values()].filter((f) => f.state === "waiting");
        if (waiting.length === 0) break;
        let pick = waiting[0]!;
        if (waiting.length > 1) {
          const steps = waiting.map((f) => f.queue[0]!.step);
          const chosen = choose(steps, decisions.length);
          if (!Number.isInteger(chosen) || chosen < 0 || chosen >= waiting.length)
            throw new Error(`chooser answered ${chosen} for ${waiting.length} waiting flows`);
          decisions.push({ chosen, options: waiting.length });
          pick = waiting[chosen]!;
        }
        const step = release(pick);
        trace.push(`${step.flow}:${step.label}`);
      }
      await Promise.all(settled);
    } finally {
      active = null;
    }
    return { results, trace, decisions };
  }

  return { store, run, late };
}

export type Scheduler = ReturnType<typeof createScheduler>;

/** mulberry32: a small seeded PRNG, so a sampled interleaving can be replayed from its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What `exploreInterleavings` needs: a fresh world per interleaving, the two flows, and the check. */
export interface Exploration<W, R> {
  /** Builds a fresh store and world; `wrap` puts the scheduler in front of the store the auth uses. */
  setup(wrap: (store: FullStore) => FullStore): Promise<W>;
  flows(world: W): Record<string, () => Promise<R>>;
  /** Throws (an `expect` failure) when the outcome breaks an invariant. Runs outside the flows (not scheduled). */
  check(world: W, run: ScheduleRun<R>): Promise<void>;
  /** Disposes of a world (closes its store). */
  teardown?(world: W): Promise<void>;
  /** Enumerate every interleaving while there are at most this many (default 400); beyond it, sample. */
  exhaustiveLimit?: number;
  /** How many seeded random interleavings to run when the enumeration stops at the limit (default 100). */
  samples?: number;
  /** The sampling seed (default: `LATCHKEY_SEAMS_SEED` or a random one); printed either way. */
  seed?: number;
}

/** How many interleavings ran and how they were chosen. */
export interface ExplorationReport {
  explored: number;
  exhaustive: boolean;
  /** The seed of the sampled part, when the enumeration stopped at the limit. */
  seed: number | null;
  /** The longest trace seen (for the test output). */
  longest: number;
}

/**
 * Runs the flows under every interleaving of their store calls (depth-first over the scheduler's decisions, a
 * fresh world each time), or, when there are more than `exhaustiveLimit`, the enumerated ones plus a seeded random
 * sample. A failing check is rethrown with the trace (and seed) that produced it, so the failure can be replayed.
 *
 * @example
 * const report = await exploreInterleavings({ setup, flows, check });
 * console.log(`sign-in x reset: ${report.explored} interleavings`);
 */
export async function exploreInterleavings<W, R>(e: Exploration<W, R>): Promise<ExplorationReport> {
  const limit = e.exhaustiveLimit ?? 400;
  let explored = 0;
  let longest = 0;
  const once = async (choose: Chooser, what: string) => {
    const scheduler = { current: null as Scheduler | null };
    const world = await e.setup((store) => {
      scheduler.current = createScheduler(store);
      return scheduler.current.store;
    });
    if (!scheduler.current) throw new Error("setup must wrap its store with the given function");
    try {
      const run = await scheduler.current.run(e.flows(world), choose);
      explored += 1;
      longest = Math.max(longest, run.trace.length);
      try {
        await e.check(world, run);
      } catch (error) {
        const detail = `${what}\ntrace:\n  ${run.trace.join("\n  ")}\nresults: ${describeResults(run.results)}`;
        if (error instanceof Error) error.message = `${error.message}\n--- interleaving ${detail}`;
        throw error;
      }
      return run;
    } finally {
      await e.teardown?.(world);
    }
  };

  // Depth-first: replay a prefix of decisions, take the first option after it, then move to the next sibling.
  let prefix: number[] = [];
  for (;;) {
    const run = await once((_, i) => (i < prefix.length ? prefix[i]! : 0), `#${explored + 1} (enumerated)`);
    const d = run.decisions;
    let j = d.length - 1;
    while (j >= 0 && d[j]!.chosen + 1 >= d[j]!.options) j -= 1;
    if (j < 0) return { explored, exhaustive: true, seed: null, longest };
    prefix = [...d.slice(0, j).map((x) => x.chosen), d[j]!.chosen + 1];
    if (explored >= limit) break;
  }
  const seed = e.seed ?? (Number(process.env.LATCHKEY_SEAMS_SEED) || Math.floor(Math.random() * 2 ** 31));
  const random = seededRandom(seed);
  for (let i = 0; i < (e.samples ?? 100); i++)
    await once((waiting) => Math.floor(random() * waiting.length), `sample ${i + 1} of seed ${seed}`);
  return { explored, exhaustive: false, seed, longest };
}

function describeResults(results: Record<string, { ok: boolean; value?: unknown; error?: unknown }>): string {
  return Object.entries(results)
    .map(([name, r]) => `${name}=${r.ok ? JSON.stringify(r.value) : String(r.error)}`)
    .join(", ");
}
