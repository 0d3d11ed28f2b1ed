// Outages under load: Redis frozen (Redis counters), a PostgreSQL restart and stop, and kill -9 of one instance
// (database counters). Setup: reliability-fixture.ts, mixed-load.ts.
import { expect } from "vitest";
import { call, sleep, type Answer } from "./harness.ts";
import {
  a,
  b,
  BOUND_MS,
  LOAD_MS,
  pgServer,
  redis,
  REDIS_COMMAND_TIMEOUT_MS,
  REDIS_LOAD_MS,
  REDIS_MARGIN_MS,
  setUpPostgres,
  url,
  variant,
  type Variant,
} from "./reliability-fixture.ts";
import { expectHealthyAgain, expectOnlyUnavailableDuring, reconcile, startMixedLoad } from "./mixed-load.ts";

setUpPostgres();

const tests = ({ itFull, itRedis }: Variant) => {
  itRedis(
    "Redis frozen (SIGSTOP) for 5 s mid-load: every request ends within commandTimeout plus a margin, only 503 while frozen, /health says so, recovery, reconciliation",
    async () => {
      const server = redis!;
      const { prefix, ledger, stopAfter } = startMixedLoad("frozen", 8);
      await sleep(3000);
      const frozenAt = Date.now();
      server.freeze();
      let thawedAt = 0;
      const health: Answer[] = [];
      try {
        await sleep(1500);
        // A load balancer's probe while Redis hangs: 503 within the bound, from both instances.
        for (const instance of [a, b]) health.push(await call(instance, "GET", "/auth/health"));
        await sleep(3500);
      } finally {
        server.thaw();
        thawedAt = Date.now();
      }
      for (const probe of health) {
        expect(probe.status, probe.text).toBe(503);
        expect(JSON.parse(probe.text)).toEqual({ code: "DATABASE_UNAVAILABLE", message: expect.any(String) });
        expect(probe.ms).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + REDIS_MARGIN_MS);
      }
      await expectHealthyAgain(thawedAt, "Redis resumed");
      await stopAfter(3000);
      expect(a.alive() && b.alive(), `a process exited: ${a.stderr()} ${b.stderr()}`).toBe(true);
      // Nothing hung: every request got an answer (status 0 is the client's own 15 s timeout), and none took
      // longer than the command timeout plus the margin.
      expect(ledger.answers.filter((r) => r.status === 0)).toHaveLength(0);
      const slowest = Math.max(...ledger.answers.map((r) => r.ms));
      expect(slowest).toBeLessThan(REDIS_COMMAND_TIMEOUT_MS + REDIS_MARGIN_MS);
      const grace = REDIS_COMMAND_TIMEOUT_MS + REDIS_MARGIN_MS;
      const inFreeze = (r: Answer) => r.at + r.ms >= frozenAt && r.at <= thawedAt + grace;
      const unavailable = expectOnlyUnavailableDuring(ledger, inFreeze);
      console.log(
        `[reliability] Redis frozen: ${ledger.answers.length} answers, ${unavailable.length} x 503, slowest ${slowest} ms`,
      );
      await reconcile(url, prefix, ledger);
    },
  );

  itFull(
    "PostgreSQL restart and a 5 s stop mid-load: no process exit, only 503 during the outage, recovery, reconciliation",
    async () => {
      const outages: Array<[number, number]> = [];
      // Load from 4 s before the restart until 3 s after both instances report healthy again.
      const { prefix, ledger, stopAfter } = startMixedLoad("outage", 8);
      await sleep(4000);
      let t = Date.now();
      await pgServer.restart();
      outages.push([t, Date.now()]);
      await sleep(5000);
      t = Date.now();
      await pgServer.halt();
      await sleep(5000);
      await pgServer.resume();
      outages.push([t, Date.now()]);
      const resumedAt = Date.now();
      // Both instances report healthy again by themselves, within seconds.
      await expectHealthyAgain(resumedAt, "the database returned");
      const recoveredIn = Date.now() - resumedAt;
      await stopAfter(3000);
      expect(a.alive() && b.alive(), `a process exited: ${a.stderr()} ${b.stderr()}`).toBe(true);
      const grace = 6000;
      const inOutage = (r: Answer) => outages.some(([from, to]) => r.at + r.ms >= from && r.at <= to + grace);
      const unavailable = expectOnlyUnavailableDuring(ledger, inOutage);
      expect(Math.max(...ledger.answers.map((r) => r.ms))).toBeLessThan(BOUND_MS);
      console.log(
        `[reliability] outage: ${ledger.answers.length} answers, ${unavailable.length} x 503, recovered ${recoveredIn} ms after the database returned`,
      );
      await reconcile(url, prefix, ledger);
    },
  );

  // Last of the variant: B stays dead (afterAll skips it).
  itFull("kill -9 of one instance mid-load leaves the other unaffected", async () => {
    const fromA: Answer[] = [];
    let killed = false;
    const { prefix, ledger, done } = startMixedLoad("kill", 8, {
      durationMs: 6000,
      targets: () => (killed ? [a] : [a, b]),
      onAnswer: (r, i) => {
        if (i === a) fromA.push(r);
      },
    });
    await sleep(2500);
    b.child.kill("SIGKILL");
    await b.exit;
    killed = true;
    await done;
    expect(a.alive()).toBe(true);
    expect(fromA.length).toBeGreaterThan(50);
    expect(
      fromA
        .filter((r) => r.status !== 200)
        .slice(0, 10)
        .map((r) => `${r.status} ${r.text.slice(0, 120)}`),
    ).toEqual([]);
    // B's answers: 200 before the kill, no answer (0) for requests it held when killed; never a 5xx.
    expect(
      ledger.answers
        .filter((r) => r.status >= 500)
        .slice(0, 10)
        .map((r) => `${r.status} ${r.text.slice(0, 120)}`),
    ).toEqual([]);
    await reconcile(url, prefix, ledger);
  });
};

// The PostgreSQL outage and kill -9 run in the database counters' variant, the Redis freeze in the Redis one.
variant("database counters", false, true, LOAD_MS, tests);
variant("Redis counters", true, false, REDIS_LOAD_MS, tests);
