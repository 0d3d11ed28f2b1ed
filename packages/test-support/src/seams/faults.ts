import type { FullStore } from "@latchkey/core";
import { callLabel, instrumentStore, type PortCall } from "./instrument.ts";

/** The error an injected write failure throws (what a database error looks like to core: an ordinary throw). */
export class InjectedWriteFailure extends Error {
  constructor(
    readonly label: string,
    readonly k: number,
  ) {
    super(`injected failure of write ${k} (${label})`);
    this.name = "InjectedWriteFailure";
  }
}

/** What every store call throws after a simulated crash: the process is gone, nothing more reaches the store. */
export class InjectedCrash extends Error {
  constructor(readonly label: string) {
    super(`the process crashed before ${label}`);
    this.name = "InjectedCrash";
  }
}

/** `fail`: the k-th write throws (and changes nothing); `crash`: the k-th write lands, then every later call throws. */
export type FaultPlan = { mode: "fail" | "crash"; at: number } | null;

/**
 * A store wrapper that counts the writes made while it is armed and injects one fault by plan. Writes inside a
 * transaction count one by one (a failure there rolls the transaction back, as a database error would).
 *
 * @example
 * const f = createFaultStore(memoryStore());
 * f.arm({ mode: "fail", at: 2 }); // the second write from now on throws
 * await request();
 * f.disarm();
 */
export function createFaultStore(inner: FullStore) {
  let plan: FaultPlan = null;
  let armed = false;
  let crashed = false;
  const writes: string[] = [];
  let injected: string | null = null;
  const store = instrumentStore(inner, {
    async call(c: PortCall, run) {
      if (!armed) return run();
      const label = callLabel(c);
      if (crashed) throw new InjectedCrash(label);
      if (!c.write) return run();
      writes.push(label);
      const k = writes.length;
      if (plan?.at === k && plan.mode === "fail") {
        injected = `fail ${label}`;
        throw new InjectedWriteFailure(label, k);
      }
      const value = await run();
      if (plan?.at === k && plan.mode === "crash") {
        injected = `crash after ${label}`;
        crashed = true;
      }
      return value;
    },
  });
  return {
    store,
    /** Starts counting writes from zero, with this plan (null: only count). */
    arm(next: FaultPlan) {
      plan = next;
      armed = true;
      crashed = false;
      injected = null;
      writes.length = 0;
    },
    /** Stops injecting and counting: the store behaves as the real one again (the process restarted). */
    disarm() {
      armed = false;
      crashed = false;
    },
    /** The writes counted since `arm`, in order. */
    get writes(): readonly string[] {
      return writes;
    },
    /** What was injected since `arm` (null when the plan's write never came). */
    get injected(): string | null {
      return injected;
    },
  };
}

export type FaultStore = ReturnType<typeof createFaultStore>;

/** What `exploreFaults` needs: a fresh world per fault, the flow, and the checks after the fault and the retry. */
export interface FaultExploration<W, R> {
  setup(wrap: (store: FullStore) => FullStore): Promise<W>;
  /** The flow under test (one request, or a few that form one user action). */
  flow(world: W): Promise<R>;
  /**
   * After the faulted run (the store disarmed again): assert the answer was a clean error (never a success for
   * work not done) and every invariant holds. `outcome` is the flow's result or error (after a crash: an
   * `InjectedCrash`, since a crashed process answers nothing).
   */
  afterFault(
    world: W,
    outcome: { ok: true; value: R } | { ok: false; error: unknown },
    fault: { mode: "fail" | "crash"; at: number; label: string },
  ): Promise<void>;
  /** Repeats the request (after a crash, as a restarted process would) and asserts it succeeds or says why not. */
  retry(world: W): Promise<void>;
  teardown?(world: W): Promise<void>;
}

export interface FaultReport {
  /** Writes of the flow without faults. */
  writes: readonly string[];
  /** Faults injected (writes x 2 modes). */
  injected: number;
}

/**
 * Runs the flow once without faults to count its writes (n), then for every k in 1..n: once with the k-th write
 * failing and once crashing after the k-th write, each on a fresh world, checking after the fault and after a
 * retry. Failures name the fault, so they can be replayed.
 *
 * @example
 * const report = await exploreFaults({ setup, flow, afterFault, retry });
 * console.log(`reset: ${report.injected} faults over ${report.writes.length} writes`);
 */
export async function exploreFaults<W, R>(e: FaultExploration<W, R>): Promise<FaultReport> {
  const withWorld = async (plan: FaultPlan, body: (world: W, faults: FaultStore) => Promise<void>) => {
    const holder = { faults: null as FaultStore | null };
    const world = await e.setup((store) => {
      holder.faults = createFaultStore(store);
      return holder.faults.store;
    });
    const faults = holder.faults as FaultStore | null;
    if (!faults) throw new Error("setup must wrap its store with the given function");
    try {
      faults.arm(plan);
      await body(world, faults);
    } finally {
      faults.disarm();
      await e.teardown?.(world);
    }
  };
  let writes: readonly string[] = [];
  await withWorld(null, async (world, faults) => {
    await e.flow(world);
    writes = [...faults.writes];
  });
  if (writes.length === 0) throw new Error("the flow made no writes: nothing to inject");
  let injected = 0;
  for (let at = 1; at <= writes.length; at++) {
    for (const mode of ["fail", "crash"] as const) {
      await withWorld({ mode, at }, async (world, faults) => {
        let outcome: { ok: true; value: R } | { ok: false; error: unknown };
        try {
          outcome = { ok: true, value: await e.flow(world) };
        } catch (error) {
          outcome = { ok: false, error };
        }
        const label = faults.injected;
        faults.disarm();
        // A crashed process answers nothing, whatever the flow would have answered.
        if (mode === "crash" && label !== null) outcome = { ok: false, error: new InjectedCrash("the answer") };
        if (label === null) return; // this run made fewer writes (a different path): nothing was injected
        injected += 1;
        try {
          await e.afterFault(world, outcome, { mode, at, label });
          await e.retry(world);
        } catch (error) {
          if (error instanceof Error)
            error.message = `${error.message}\n--- fault: ${label} (write ${at} of ${writes.join(", ")})`;
          throw error;
        }
      });
    }
  }
  return { writes, injected };
}
