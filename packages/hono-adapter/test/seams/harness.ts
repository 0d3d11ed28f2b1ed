import {
  argon2idHasher,
  compensatingTransaction,
  webCryptoRandom,
  type AuthPlugin,
  type FullStore,
  type PasswordHasher,
} from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { expect } from "vitest";
import {
  describeViolations,
  structuralViolations,
  takeSnapshot,
  type ExplorationReport,
  type FaultReport,
  type ScheduleRun,
  type Snapshot,
  type SnapshotScope,
} from "@latchkey/test-support";
import { createTestAuth, type TestAuth } from "../test-auth.ts";
import type { CreateAuthOptions } from "../../src/create-auth.ts";
import { storeForTestRun, testStoreKind } from "../test-stores.ts";

/** The cheap argon2id of the HTTP tests; any argon2id hasher verifies what another one hashed. */
export const seamHasher: PasswordHasher = argon2idHasher({
  random: webCryptoRandom,
  params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
});

/** The store of this run's kind (memory, or a fresh libSQL/PostgreSQL database), shared by a test's worlds. */
export function sharedStore(): FullStore {
  return storeForTestRun() ?? memoryStore();
}

let next = 0;
/** A fresh email per world, so worlds on one shared database never see each other's users. */
export const freshEmail = (name = "ada") => `${name}.${process.pid}.${++next}@example.com`;

/**
 * A test auth over the wrapped store. The per-IP limiter and the lockout are off unless a test turns them on:
 * their counters are independent of most pairs' invariants and each adds a step to every interleaving.
 */
export function seamAuth<const P extends readonly AuthPlugin[] = []>(
  store: FullStore,
  options: Partial<Omit<CreateAuthOptions<P>, "database">> = {},
): TestAuth<P> {
  return createTestAuth<P>({
    rateLimit: { enabled: false },
    lockout: { enabled: false },
    ...options,
    store,
  } as Partial<Omit<CreateAuthOptions<P>, "database">> & { store: FullStore });
}

/** A response read inside the flow (status and JSON body), so the check never touches a stream later. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

export async function answer(res: Promise<Response>): Promise<Answer> {
  const r = await res;
  const text = await r.text();
  return { status: r.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The password a pair's world signs up with. */
export const PASSWORD = "correct horse battery";

/** What flow `flow` of a scheduled run answered (its error, thrown again, when it failed). */
export function answerOf(run: ScheduleRun<unknown>, flow: string): Answer {
  const r = run.results[flow]!;
  if (!r.ok) throw r.error;
  return r.value as Answer;
}

/** The session token of a 200 sign-in answer. */
export const tokenOf = (a: Answer | undefined): string | null =>
  a?.status === 200 ? ((a.body.credentials as { token?: string } | undefined)?.token ?? null) : null;

/** Prints what a seam test explored, so the counts show in the test output (docs/invariants.md records them). */
export function report(name: string, r: ExplorationReport | FaultReport): void {
  const where = testStoreKind();
  if ("explored" in r)
    console.log(
      `[seams] ${where} ${name}: ${r.explored} interleavings${r.exhaustive ? " (all)" : ` (enumerated + sampled, seed ${r.seed})`}, longest ${r.longest} steps`,
    );
  else
    console.log(
      `[seams] ${where} ${name}: ${r.injected} faults injected over ${r.writes.length} writes (${r.writes.join(", ")})`,
    );
}

/**
 * The store with its transaction replaced by `compensatingTransaction` over its own ports: what D1 and a standalone
 * MongoDB do (every port write atomic on its own, the body's creations deleted again when it throws). Over a
 * scheduled store, every statement of such a "transaction" is a step of its own, as it is on those databases; over
 * the fault store, every write in it can fail. Undoing a created account by id has no port: this harness undoes
 * sessions only and says so when an account would need it.
 */
function withCompensation(store: FullStore): FullStore {
  return {
    ...store,
    kind: `${store.kind} (compensation)`,
    transaction: compensatingTransaction(store, {
      session: (id) => store.sessions.delete(id),
      account: async (id) => {
        throw new Error(`withCompensation cannot undo account ${id}`);
      },
      // The memory store deletes a user's passkeys with the user (undone next, newest first).
      passkey: async () => undefined,
      // Like the standalone MongoDB store: the user goes only while nothing another request attached refers to it.
      user: async (id) => {
        const [sessions, accounts] = await Promise.all([store.sessions.listByUser(id), store.accounts.listByUser(id)]);
        if (sessions.length === 0 && accounts.length === 0) await store.users.delete(id);
      },
    }) as FullStore["transaction"],
  };
}

/** The memory store with a compensating transaction (see `withCompensation`). */
export const compensatingMemoryStore = (): FullStore => withCompensation(memoryStore());

/**
 * The store variants a pair runs on: this run's store, and in the memory run also the memory ports under a
 * compensating transaction (D1 / standalone MongoDB semantics), where the scheduler interleaves inside it.
 */
export function storeVariants(): Array<{ name: string; base: () => FullStore; around: (s: FullStore) => FullStore }> {
  const plain = { name: "", base: sharedStore, around: (s: FullStore) => s };
  if (testStoreKind() !== "memory") return [plain];
  return [plain, { name: " [compensation]", base: () => memoryStore(), around: withCompensation }];
}

/**
 * How many interleavings a pair enumerates before it samples, and how many it samples: fewer on a real database,
 * where one interleaving costs a few round trips per step (the memory run carries the bulk).
 */
export function budget(): { exhaustiveLimit: number; samples: number } {
  return testStoreKind() === "memory" ? { exhaustiveLimit: 400, samples: 100 } : { exhaustiveLimit: 150, samples: 50 };
}

/**
 * Snapshots what `scope` names and asserts the structural invariants (I1, I2, I3, I7, I14 to I18) on it. `waived`
 * names invariants a pair's own outcome breaks for one user on purpose, each with its reason at the call.
 */
export async function structural(
  t: TestAuth,
  scope: SnapshotScope,
  waived: ReadonlyArray<{ invariant: number; userId: string }> = [],
): Promise<Snapshot> {
  const snap = await takeSnapshot(t.store, scope);
  const violations = structuralViolations(snap).filter(
    (found) => !waived.some((w) => w.invariant === found.invariant && found.detail.includes(`user ${w.userId} `)),
  );
  expect(violations, describeViolations(violations)).toEqual([]);
  return snap;
}

/**
 * The outcomes a race ended in, across its interleavings: the test asserts that each one it expects was reached
 * (a race whose flows never overlapped would pass every check and prove nothing).
 */
export function outcomes() {
  const seen = new Set<string>();
  return {
    add: (o: string) => seen.add(o),
    expect: (...all: string[]) => expect([...seen].sort()).toEqual([...all].sort()),
  };
}
