// The worker d1.test.ts runs in workerd (Miniflare) with a D1 binding: the shared store-conformance suite and the
// D1-specific cases below register through vitest-in-worker.ts; GET /cases lists them, POST /cases/<id> runs one,
// POST /finish runs the afterAll hooks.
import type { Store } from "@latchkey/core";
import { fixtures, runStoreConformance } from "@latchkey/store-conformance";
import { drizzleStore, type D1DatabaseBinding } from "../../src/d1.ts";
import { userConflictOf } from "../../src/sqlite/errors.ts";
import { afterAll, beforeAll, describe, expect, finish, it, listCases, runCase } from "./vitest-in-worker.ts";

interface Env {
  DB: D1DatabaseBinding;
}

// Bindings arrive with requests; the suite's createStore runs inside the first case's request.
let env: Env | undefined;
const binding = () => {
  if (!env) throw new Error("no request has delivered the D1 binding yet");
  return env.DB;
};

runStoreConformance({ name: "d1 (workerd)", createStore: () => drizzleStore({ binding: binding() }) });

const { account, session, user } = fixtures;

describe("d1 store mapping", () => {
  let store: Store;
  beforeAll(() => {
    store = drizzleStore({ binding: binding() });
  });
  afterAll(() => store.close());

  it("maps D1's unique violations of users.email and users.username, and only those", async () => {
    const u = user({ username: fixtures.uid("n").toLowerCase() });
    const other = user();
    expect((await store.users.create(u, [])).ok).toBe(true);
    expect((await store.users.create(other, [])).ok).toBe(true);
    const email = await binding()
      .prepare("update users set email = ? where id = ?")
      .bind(u.email, other.id)
      .run()
      .catch((e: unknown) => e);
    expect(userConflictOf(email)).toBe("email");
    const name = await binding()
      .prepare("update users set username = ? where id = ?")
      .bind(u.username, other.id)
      .run()
      .catch((e: unknown) => e);
    expect(userConflictOf(name)).toBe("username");
    expect(await store.users.create(user({ email: u.email }), [])).toEqual({ ok: false, conflict: "email" });
    const s = session(u.id);
    await store.sessions.create(s);
    const sameToken = await store.sessions.create(session(u.id, { tokenHash: s.tokenHash })).catch((e: unknown) => e);
    expect(sameToken).toBeInstanceOf(Error);
    expect(userConflictOf(sameToken)).toBeNull();
  });

  it("users.create with accounts is one batch: a failing account insert leaves no user row", async () => {
    const u = user();
    const dup = account(u.id);
    await expect(store.users.create(u, [dup, { ...dup }])).rejects.toThrow();
    expect(await store.users.findById(u.id)).toBeNull();
    const row = await binding().prepare("select count(*) as n from users where id = ?").bind(u.id).all();
    expect(row.results).toEqual([{ n: 0 }]);
  });

  it("D1 enforces foreign keys: a session for a missing user is refused, and users.delete removes children first", async () => {
    expect(await store.sessions.create(session(fixtures.uid("ghost")))).toBe(false);
    const u = user();
    await store.users.create(u, [account(u.id)]);
    await store.sessions.create(session(u.id));
    expect(await store.users.delete(u.id)).toBe(true);
    const left = await binding()
      .prepare(
        "select (select count(*) from sessions where user_id = ?1) + (select count(*) from accounts where user_id = ?1) as n",
      )
      .bind(u.id)
      .all();
    expect(left.results).toEqual([{ n: 0 }]);
  });

  it("stores instants as integer epoch milliseconds and JSON as text", async () => {
    const u = user({ createdAt: fixtures.at(123), metadata: { b: 1, a: [true] } });
    await store.users.create(u, []);
    const { results } = await binding()
      .prepare("select typeof(created_at) as type, created_at, metadata from users where id = ?")
      .bind(u.id)
      .all();
    expect(results).toEqual([
      { type: "integer", created_at: Date.UTC(2026, 0, 1, 12, 0, 0, 123), metadata: '{"b":1,"a":[true]}' },
    ]);
  });
});

export default {
  async fetch(request: Request, workerEnv: Env): Promise<Response> {
    env = workerEnv;
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/cases") return Response.json(listCases());
    const run = /^\/cases\/(\d+)$/.exec(url.pathname);
    if (request.method === "POST" && run) return Response.json(await runCase(Number(run[1])));
    if (request.method === "POST" && url.pathname === "/finish") {
      await finish();
      return Response.json({ ok: true });
    }
    return new Response("not found", { status: 404 });
  },
};
