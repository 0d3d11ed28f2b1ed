// The part of Vitest's API the store-conformance suite uses (describe, it, beforeAll, afterAll, expect), for a
// worker bundle: the suite's `import ... from "vitest"` is aliased here when the conformance worker is bundled, so
// the very same suite registers its cases inside workerd. The Node side (d1.test.ts) lists the cases and runs each
// one by a request, so Vitest reports every case by name. `expect` is Vitest's own (@vitest/expect over chai).
import * as chai from "chai";
import {
  ASYMMETRIC_MATCHERS_OBJECT,
  JestAsymmetricMatchers,
  JestChaiExpect,
  JestExtend,
  getState,
  setState,
  type ExpectStatic,
} from "@vitest/expect";

chai.use(JestExtend);
chai.use(JestChaiExpect);
chai.use(JestAsymmetricMatchers);

type Hook = () => unknown;
/** What a case receives: `skip(note)`, as in Vitest's test context, ends it as skipped. */
interface CaseContext {
  skip(note?: string): never;
}
type CaseFn = (context: CaseContext) => unknown;
interface Suite {
  name: string;
  skip: boolean;
  parent: Suite | null;
  beforeAll: Hook[];
  afterAll: Hook[];
  ranBeforeAll: boolean;
}
interface Case {
  id: number;
  name: string;
  suite: Suite;
  fn: CaseFn;
  skip: boolean;
}

const root: Suite = { name: "", skip: false, parent: null, beforeAll: [], afterAll: [], ranBeforeAll: false };
const cases: Case[] = [];
let current = root;

function collect(name: string, fn: () => void, skip: boolean): void {
  const suite: Suite = {
    name,
    skip: skip || current.skip,
    parent: current,
    beforeAll: [],
    afterAll: [],
    ranBeforeAll: false,
  };
  const outer = current;
  current = suite;
  try {
    fn();
  } finally {
    current = outer;
  }
}

type TestFn = (name: string, fn: CaseFn, timeout?: number) => void;
export const describe = Object.assign((name: string, fn: () => void) => collect(name, fn, false), {
  skip: (name: string, fn: () => void) => collect(name, fn, true),
});
export const it: TestFn & { skip: TestFn } = Object.assign(
  (name: string, fn: CaseFn) => void cases.push({ id: cases.length, name, suite: current, fn, skip: current.skip }),
  { skip: (name: string, fn: CaseFn) => void cases.push({ id: cases.length, name, suite: current, fn, skip: true }) },
);
export const beforeAll = (fn: Hook) => void current.beforeAll.push(fn);
export const afterAll = (fn: Hook) => void current.afterAll.push(fn);

export const expect = ((value: unknown, message?: string) => {
  const { assertionCalls } = getState(expect);
  setState({ assertionCalls: assertionCalls + 1 }, expect);
  return chai.expect(value, message);
}) as ExpectStatic;
Object.assign(expect, chai.expect);
Object.assign(expect, (globalThis as Record<PropertyKey, unknown>)[ASYMMETRIC_MATCHERS_OBJECT]);
setState(
  {
    assertionCalls: 0,
    isExpectingAssertions: false,
    isExpectingAssertionsError: null,
    expectedAssertionsNumber: null,
    expectedAssertionsNumberErrorGen: null,
  },
  expect,
);

const pathOf = (suite: Suite): Suite[] => (suite.parent ? [...pathOf(suite.parent), suite] : [suite]);

/** Every registered case with its full name ("outer > inner > case"), in registration order. */
export function listCases(): Array<{ id: number; name: string; skip: boolean }> {
  return cases.map((c) => ({
    id: c.id,
    name: [
      ...pathOf(c.suite)
        .map((s) => s.name)
        .filter(Boolean),
      c.name,
    ].join(" > "),
    skip: c.skip,
  }));
}

class Skipped extends Error {
  constructor(readonly note: string) {
    super(note);
  }
}
const context: CaseContext = {
  skip(note) {
    throw new Skipped(note ?? "skipped");
  },
};

/**
 * Runs one case: the `beforeAll` hooks of its suites that have not run yet (outermost first), then the case. A case
 * that called `skip(note)` answers with the note.
 */
export async function runCase(id: number): Promise<{ ok: true; skipped?: string } | { ok: false; error: string }> {
  const found = cases[id];
  if (!found) return { ok: false, error: `no case ${id}` };
  try {
    for (const suite of pathOf(found.suite)) {
      if (suite.ranBeforeAll) continue;
      suite.ranBeforeAll = true;
      for (const hook of suite.beforeAll) await hook();
    }
    await found.fn(context);
    return { ok: true };
  } catch (error) {
    if (error instanceof Skipped) return { ok: true, skipped: error.note };
    return { ok: false, error: error instanceof Error ? `${error.message}\n${error.stack ?? ""}` : String(error) };
  }
}

/** Runs every `afterAll` hook of the suites whose `beforeAll` ran, innermost first. */
export async function finish(): Promise<void> {
  const suites = new Set<Suite>();
  for (const c of cases) for (const s of pathOf(c.suite)) if (s.ranBeforeAll) suites.add(s);
  for (const suite of [...suites].reverse()) for (const hook of suite.afterAll) await hook();
}
