import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  JOURNEYS,
  apiKeysJourney,
  deleteAccountJourney,
  jwtJourney,
  planSuite,
  runSuite,
  twoFactorJourney,
} from "@latchkey/e2e";
import { base32Decode, totp } from "@latchkey/core/internal";
import { bundleWorker, startWorker, type RunningWorker, type WorkerBundle } from "@latchkey/e2e/workerd";
import { MIGRATIONS_FOLDERS, readSqlMigrations } from "@latchkey/drizzle-store";
import { drizzleStore, migrateD1Database } from "@latchkey/drizzle-store/d1";
import {
  authorizeAt,
  CLIENT_ID,
  CLIENT_SECRET,
  startTestOidcProvider,
  type TestOidcProvider,
} from "@latchkey/test-support/oidc-provider";
import { SoftwareAuthenticator } from "@latchkey/test-support/software-authenticator";
import { budgetProblems } from "../../../bench/bundle/measure.ts";

const BASE_URL = "https://workers.example";
// wrangler's local D1 for a binding without database_id: the id is the binding name, the files in .wrangler/state/v3/d1.
const D1 = { databases: { DB: "DB" } };
let bundle: WorkerBundle;
let persist: string;
let worker: RunningWorker;
let other: RunningWorker;
let unconfigured: RunningWorker;
// A real OpenID provider (panva's oidc-provider) on a loopback port of this process: workerd reaches it by fetch.
let idp: TestOidcProvider;
const outbox: Array<{ to: string; text: string }> = [];
const capture = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => void (body += chunk.toString()));
  req.on("end", () => {
    outbox.push(JSON.parse(body) as { to: string; text: string });
    res.writeHead(204).end();
  });
});

// Cloudflare's edge sets cf-connecting-ip; the tests play the edge, in front of either instance.
const edgeOf =
  (target: () => RunningWorker) =>
  (request: Request, ip = "203.0.113.9") => {
    const headers = new Headers(request.headers);
    headers.set("cf-connecting-ip", request.headers.get("x-e2e-ip") ?? ip);
    return target().fetch(new Request(request, { headers }));
  };
const viaEdge = edgeOf(() => worker);

beforeAll(async () => {
  bundle = await bundleWorker(fileURLToPath(new URL("./worker.ts", import.meta.url)), { minify: true });
  await new Promise<void>((resolve) => capture.listen(0, "127.0.0.1", resolve));
  const address = capture.address();
  idp = await startTestOidcProvider([`${BASE_URL}/auth/callback/oidc`]);
  const bindings = {
    LATCHKEY_SECRET: "w".repeat(64),
    LATCHKEY_BASE_URL: BASE_URL,
    EMAIL_WEBHOOK_URL: `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/emails`,
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
  };
  // One D1 on disk, as `wrangler dev` keeps it; two workerd processes (two Miniflare instances) open it.
  persist = mkdtempSync(join(tmpdir(), "latchkey-d1-"));
  worker = await startWorker(bundle.code, bindings, { d1: { ...D1, persist } });
  expect(await migrateD1Database(await worker.d1("DB"), readSqlMigrations(MIGRATIONS_FOLDERS.sqlite))).toEqual([
    "0000_initial",
    "0001_api_key_lifecycle",
    "0002_session_remember_me",
    "0003_app_metadata",
    "0004_counters_reset_at_index",
    "0005_partial_nullable_indexes",
    "0006_two_factor",
    "0007_social_accounts",
    "0008_passkeys",
    "0009_admin",
    "0010_organizations",
    "0011_impersonation_index",
    "0012_organization_api_keys",
  ]);
  other = await startWorker(bundle.code, bindings, { d1: { ...D1, persist } });
  // A deploy that forgot LATCHKEY_BASE_URL.
  const { LATCHKEY_BASE_URL: _, ...unpinned } = bindings;
  unconfigured = await startWorker(bundle.code, unpinned, { d1: { ...D1, persist } });
});

afterAll(async () => {
  await worker?.dispose();
  await other?.dispose();
  await unconfigured?.dispose();
  await new Promise((resolve) => capture.close(resolve));
  await idp?.close();
  if (persist) rmSync(persist, { recursive: true, force: true });
});

describe("Cloudflare Workers example (bundled with esbuild, run in workerd via Miniflare, on D1)", () => {
  it("stays in the bundle budget: no node: imports, native argon2, drivers or 4 MB explorer script; gzip under budget", () => {
    expect(budgetProblems(bundle)).toEqual([]);
    expect(bundle.byPackage.map((p) => p.name)).not.toContain("@scalar/api-reference");
    // The store is in the bundle: drizzle's D1 driver and the SQLite schema, no libSQL.
    expect(bundle.byPackage.map((p) => p.name)).toContain("drizzle-orm");
    expect(bundle.bytes).toBeLessThan(1_000_000);
  });

  it("the budget check catches a node: import and a native addon (the check itself works)", () => {
    const tainted = { ...bundle, nodeImports: ["node:fs"], forbiddenInputs: ["node_modules/@node-rs/argon2/index.js"] };
    expect(budgetProblems(tainted)).toHaveLength(2);
  });

  it("answers GET /auth/get-session with null for an anonymous request", async () => {
    const res = await viaEdge(new Request(`${BASE_URL}/auth/get-session`));
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
  });

  it("signs up and reads the session back by cookie", async () => {
    const up = await viaEdge(
      new Request(`${BASE_URL}/auth/sign-up/email`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "ada@workers.example", password: "correct horse battery" }),
      }),
    );
    expect(up.status).toBe(200);
    const cookie = up.headers.get("set-cookie")!.split(";")[0]!;
    expect(cookie.startsWith("__Host-latchkey.session=")).toBe(true);
    const session = await viaEdge(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }));
    expect(((await session.json()) as { user: { email: string } }).user.email).toBe("ada@workers.example");
  });

  it("rate-limits by cf-connecting-ip (one client is limited, another is not)", async () => {
    // The per-IP rule counts before validation, so invalid bodies (cheap 400s, no password hashing) use it up.
    const attempt = (ip: string) =>
      viaEdge(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "not-an-email", password: "no email" }),
        }),
        ip,
      );
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt("198.51.100.77")).status);
    expect(statuses).toEqual(Array(10).fill(400));
    const limited = await attempt("198.51.100.77");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as { code: string }).code).toBe("RATE_LIMITED");
    expect((await attempt("198.51.100.78")).status).toBe(400);
  });

  it("explains that the explorer script is not bundled on Workers", async () => {
    const res = await viaEdge(new Request(`${BASE_URL}/auth/reference/scalar.js`));
    expect(res.status).toBe(404);
    expect(((await res.json()) as { message: string }).message).toMatch(/reference\.scriptUrl/);
  });

  it("passes the shared e2e journeys over HTTP (those that need no OTP capture)", async () => {
    const lines: string[] = [];
    const cases = await planSuite(
      { handler: (request) => viaEdge(request), baseUrl: BASE_URL, basePath: "/auth" },
      JOURNEYS,
    );
    const result = await runSuite(cases, (line) => lines.push(line));
    expect(result.failed, lines.join("\n")).toEqual([]);
    expect(result.passed.length).toBeGreaterThanOrEqual(6);
    // The worker installs apiKeys() and jwt(): keys verify, and tokens signed in workerd verify with jose in Node.
    expect(result.passed).toEqual(
      expect.arrayContaining([apiKeysJourney.name, jwtJourney.name, deleteAccountJourney.name, twoFactorJourney.name]),
    );
  });
});

describe("a worker without LATCHKEY_BASE_URL", () => {
  it("serves nothing (500, configuration named in the log only) instead of taking links and origins from the first request's Host", async () => {
    const sent = outbox.length;
    for (const host of ["https://evil.example", "https://workers.example"]) {
      const res = await unconfigured.fetch(
        new Request(`${host}/auth/request-password-reset`, {
          method: "POST",
          headers: { "content-type": "application/json", "cf-connecting-ip": "203.0.113.77" },
          body: JSON.stringify({ email: "nobase@example.com" }),
        }),
      );
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ code: "INTERNAL_ERROR", message: "The auth service is not configured" });
    }
    expect(outbox.slice(sent)).toEqual([]);
  });
});

describe("two worker instances (two Miniflare processes) over one persisted D1 share what memory could not", () => {
  const viaA = edgeOf(() => worker);
  const viaB = edgeOf(() => other);
  const json = (body: unknown) => ({
    method: "POST",
    headers: { "content-type": "application/json", origin: BASE_URL },
    body: JSON.stringify(body),
  });
  const signUp = async (email: string, ip: string) => {
    const res = await viaA(
      new Request(`${BASE_URL}/auth/sign-up/email`, json({ email, password: "correct horse battery" })),
      ip,
    );
    expect(res.status).toBe(200);
    return res.headers.get("set-cookie")!.split(";")[0]!;
  };
  const signIn = (via: typeof viaA, email: string, password: string, ip: string) =>
    via(new Request(`${BASE_URL}/auth/sign-in/email`, json({ email, password })), ip);
  async function codeSentTo(email: string): Promise<string> {
    // The worker mails in the background (ctx.waitUntil): wait for the webhook, a bounded number of turns.
    for (let turn = 0; turn < 200; turn++) {
      const code = outbox.findLast((m) => m.to === email)?.text.match(/\b(\d{6})\b/)?.[1];
      if (code) return code;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no code reached the webhook for ${email}`);
  }

  it("two-factor on D1: one code sent to both instances at once finishes one sign-in; a recovery code spent twice at once, once", async () => {
    const email = "second-factor@workers.example";
    const cookie = await signUp(email, "192.0.2.50");
    const withCookie = (body: unknown) => {
      const init = json(body);
      return { ...init, headers: { ...init.headers, cookie } };
    };
    const enabled = await viaA(
      new Request(`${BASE_URL}/auth/two-factor/enable`, withCookie({ password: "correct horse battery" })),
      "192.0.2.50",
    );
    expect(enabled.status).toBe(200);
    const { secret, recoveryCodes } = (await enabled.json()) as { secret: string; recoveryCodes: string[] };
    const key = base32Decode(secret)!;
    const code = (aheadMs: number) => totp(key, Date.now() + aheadMs, { digits: 6, period: 30, algorithm: "SHA1" });
    const setup = await viaB(
      new Request(`${BASE_URL}/auth/two-factor/verify-setup`, withCookie({ code: code(0) })),
      "192.0.2.50",
    );
    expect(setup.status).toBe(200);
    // Two pending sign-ins (token clients get the pending token in the answer), one made on each instance.
    const pending = async (via: typeof viaA, ip: string) => {
      const res = await via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", "latchkey-credentials": "bearer" },
          body: JSON.stringify({ email, password: "correct horse battery" }),
        }),
        ip,
      );
      const body = (await res.json()) as { twoFactorRequired?: boolean; twoFactorToken?: string };
      expect(body.twoFactorRequired).toBe(true);
      return body.twoFactorToken!;
    };
    // Two workerd processes over one local SQLite file can meet its write lock (Cloudflare's D1 has one writer):
    // that is a 503 DATABASE_UNAVAILABLE, which a client retries, as here. The retry of the loser must be refused.
    let unavailable = 0;
    const finish = async (via: typeof viaA, path: string, token: string, body: Record<string, unknown>, ip: string) => {
      for (let attempt = 0; ; attempt++) {
        const res = await via(
          new Request(`${BASE_URL}/auth/two-factor/${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ ...body, twoFactorToken: token }),
          }),
          ip,
        );
        if (res.status !== 503 || attempt === 5) return res;
        unavailable++;
        expect(((await res.json()) as { code: string }).code).toBe("DATABASE_UNAVAILABLE");
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    };
    // The next step's code (never used), to both instances at once: the step is stored by compare-and-set in D1.
    // A winner whose write after the compare-and-set met the lock answered 503 with its step already spent (D1 keeps
    // an update a failed request made: docs/stores.md), so its retry is refused too: then, and only then, the race
    // runs again with the next step's code (never two winners either way).
    let p1 = "";
    let p2 = "";
    let both: Response[] = [];
    for (let round = 0; round < 3; round++) {
      [p1, p2] = [await pending(viaA, "192.0.2.51"), await pending(viaB, "192.0.2.52")];
      const next = code(30_000);
      unavailable = 0;
      both = await Promise.all([
        finish(viaA, "verify", p1, { code: next, trustDevice: true }, "192.0.2.51"),
        finish(viaB, "verify", p2, { code: next, trustDevice: true }, "192.0.2.52"),
      ]);
      expect(both.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
      if (unavailable === 0 || both.some((r) => r.status === 200)) break;
      await new Promise((resolve) => setTimeout(resolve, 30_000 - (Date.now() % 30_000) + 100));
    }
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    const refused = both.find((r) => r.status === 400)!;
    expect(((await refused.json()) as { code: string }).code).toBe("INVALID_TWO_FACTOR_CODE");
    const deviceToken = (
      (await both.find((r) => r.status === 200)!.json()) as { credentials: { trustedDeviceToken: string } }
    ).credentials.trustedDeviceToken;
    // One recovery code, two pending sign-ins, both instances at once: exactly one session.
    const [p3, p4] = [await pending(viaA, "192.0.2.53"), await pending(viaB, "192.0.2.54")];
    const recovery = await Promise.all([
      finish(viaA, "verify-recovery-code", p3, { code: recoveryCodes[0] }, "192.0.2.53"),
      finish(viaB, "verify-recovery-code", p4, { code: recoveryCodes[0] }, "192.0.2.54"),
    ]);
    expect(recovery.map((r) => r.status).sort()).toEqual([200, 400]);
    // A spent pending sign-in replayed, on the other instance: refused.
    const winner = both[0]!.status === 200 ? { via: viaB, token: p1 } : { via: viaA, token: p2 };
    const replay = await finish(winner.via, "verify", winner.token, { code: code(30_000) }, "192.0.2.55");
    expect(replay.status).toBe(401);
    expect(((await replay.json()) as { code: string }).code).toBe("INVALID_TWO_FACTOR_SIGN_IN");

    // Disabling without a code is refused; two-factor stays on (the next sign-in still stops at the second step).
    const noCode = await viaA(
      new Request(`${BASE_URL}/auth/two-factor/disable`, withCookie({ password: "correct horse battery" })),
      "192.0.2.50",
    );
    expect(noCode.status).toBe(400);
    await pending(viaB, "192.0.2.56");

    // The device trusted by the winning code skips the second step, until the password changes.
    const fromDevice = (via: typeof viaA, password: string, ip: string) =>
      via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json", "latchkey-trusted-device": deviceToken },
          body: JSON.stringify({ email, password }),
        }),
        ip,
      );
    const skipped = (await (await fromDevice(viaA, "correct horse battery", "192.0.2.58")).json()) as {
      user?: unknown;
      twoFactorRequired?: boolean;
    };
    expect(skipped.twoFactorRequired).toBeUndefined();
    expect(skipped.user).toBeDefined();
    const changed = await viaB(
      new Request(
        `${BASE_URL}/auth/change-password`,
        withCookie({ currentPassword: "correct horse battery", newPassword: "another horse battery" }),
      ),
      "192.0.2.50",
    );
    expect(changed.status).toBe(200);
    const after = (await (await fromDevice(viaA, "another horse battery", "192.0.2.59")).json()) as {
      twoFactorRequired?: boolean;
    };
    expect(after.twoFactorRequired).toBe(true);
  }, 120_000);

  it("two-factor on D1: wrong codes spread over both instances lock the second step on either", async () => {
    const email = "locked-factor@workers.example";
    const cookie = await signUp(email, "192.0.2.60");
    const init = json({ password: "correct horse battery" });
    const enabled = await viaA(
      new Request(`${BASE_URL}/auth/two-factor/enable`, { ...init, headers: { ...init.headers, cookie } }),
      "192.0.2.60",
    );
    const { secret } = (await enabled.json()) as { secret: string };
    const key = base32Decode(secret)!;
    const now = totp(key, Date.now(), { digits: 6, period: 30, algorithm: "SHA1" });
    const setupInit = json({ code: now });
    const setup = await viaB(
      new Request(`${BASE_URL}/auth/two-factor/verify-setup`, {
        ...setupInit,
        headers: { ...setupInit.headers, cookie },
      }),
      "192.0.2.60",
    );
    expect(setup.status).toBe(200);
    const pendingOn = async (via: typeof viaA, ip: string) => {
      const res = await via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password: "correct horse battery" }),
        }),
        ip,
      );
      return ((await res.json()) as { twoFactorToken: string }).twoFactorToken;
    };
    const guess = (via: typeof viaA, token: string, code: string, ip: string) =>
      via(
        new Request(`${BASE_URL}/auth/two-factor/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ code, twoFactorToken: token }),
        }),
        ip,
      );
    const wrong = now === "000000" ? "111111" : "000000";
    const onA = await pendingOn(viaA, "192.0.2.61");
    const onB = await pendingOn(viaB, "192.0.2.62");
    for (const [via, token, ip] of [
      [viaA, onA, "192.0.2.61"],
      [viaB, onB, "192.0.2.62"],
      [viaA, onA, "192.0.2.61"],
      [viaB, onB, "192.0.2.62"],
      [viaA, onA, "192.0.2.61"],
    ] as const)
      expect((await guess(via, token, wrong, ip)).status).toBe(400);
    // Locked for the account on both instances: even the right code of the next step is not checked.
    const next = totp(key, Date.now() + 30_000, { digits: 6, period: 30, algorithm: "SHA1" });
    const locked = await guess(viaB, onB, next, "192.0.2.62");
    expect(locked.status).toBe(429);
    expect(((await locked.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
  });

  it("admin on D1: a ban on one instance ends the user's session and key on the other, and refuses its sign-in there", async () => {
    const adminCookie = await signUp("boss@workers.example", "192.0.2.40");
    // The first admin of a deployment: a role written by server code (here straight into D1).
    const d1 = await worker.d1("DB");
    await d1
      .prepare("update users set app_metadata = ? where email = ?")
      .bind(JSON.stringify({ role: "admin" }), "boss@workers.example")
      .run();
    const cookie = await signUp("mallory@workers.example", "192.0.2.41");
    const me = (await (
      await viaB(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.41")
    ).json()) as { user: { id: string } };
    const created = await viaA(
      new Request(`${BASE_URL}/auth/api-key/create`, {
        ...json({ name: "ci" }),
        headers: { "content-type": "application/json", origin: BASE_URL, cookie },
      }),
      "192.0.2.41",
    );
    expect(created.status).toBe(200);
    const { key } = (await created.json()) as { key: string };
    const verifyOnB = async () =>
      (await (await viaB(new Request(`${BASE_URL}/auth/api-key/verify`, json({ key })), "192.0.2.42")).json()) as {
        valid: boolean;
        error?: { code: string };
      };
    expect((await verifyOnB()).valid).toBe(true);
    const banned = await viaA(
      new Request(`${BASE_URL}/auth/admin/ban-user`, {
        ...json({ userId: me.user.id, banReason: "fraud" }),
        headers: { "content-type": "application/json", origin: BASE_URL, cookie: adminCookie },
      }),
      "192.0.2.40",
    );
    expect(banned.status, await banned.clone().text()).toBe(200);
    const onB = await viaB(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.41");
    expect(await onB.json()).toBeNull();
    expect((await verifyOnB()).error?.code).toBe("KEY_DISABLED");
    const refused = await signIn(viaB, "mallory@workers.example", "correct horse battery", "192.0.2.41");
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe("USER_BANNED");
    const { results } = await d1.prepare("select id from sessions where user_id = ?").bind(me.user.id).all();
    expect(results ?? []).toEqual([]);
  });

  it("a session made on one instance is read, and revoked, on the other", async () => {
    const cookie = await signUp("grace@workers.example", "192.0.2.10");
    const onB = await viaB(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.10");
    expect(((await onB.json()) as { user: { email: string } } | null)?.user.email).toBe("grace@workers.example");
    // B took its base URL from the request: a foreign Origin is refused, its own is trusted below.
    const foreign = await viaB(
      new Request(`${BASE_URL}/auth/sign-out`, { method: "POST", headers: { cookie, origin: "https://evil.example" } }),
      "192.0.2.10",
    );
    expect(foreign.status).toBe(403);
    const out = await viaB(
      new Request(`${BASE_URL}/auth/sign-out`, { method: "POST", headers: { cookie, origin: BASE_URL } }),
      "192.0.2.10",
    );
    expect(out.status).toBe(200);
    const onA = await viaA(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie } }), "192.0.2.10");
    expect(await onA.json()).toBeNull();
  });

  it("sessions revoked on one instance are refused on the other at once (revoke-other-sessions, revoke-session)", async () => {
    const email = "devices@workers.example";
    const laptop = await signUp(email, "192.0.2.30");
    // Bearer devices ask for the session token (a browser page is served by the cookie alone).
    const bearerOf = async (via: typeof viaA, ip: string) => {
      const init = json({ email, password: "correct horse battery" });
      const res = await via(
        new Request(`${BASE_URL}/auth/sign-in/email`, {
          ...init,
          headers: { ...init.headers, "latchkey-credentials": "bearer" },
        }),
        ip,
      );
      expect(res.status).toBe(200);
      return ((await res.json()) as { credentials: { token: string } }).credentials.token;
    };
    const phone = await bearerOf(viaB, "192.0.2.31");
    const tablet = await bearerOf(viaA, "192.0.2.32");
    const session = (via: typeof viaA, token: string) =>
      via(new Request(`${BASE_URL}/auth/get-session`, { headers: { authorization: `Bearer ${token}` } }), "192.0.2.33");
    // B lists the three sessions of the user; A revokes the phone's by id.
    const listed = await viaB(
      new Request(`${BASE_URL}/auth/list-sessions`, { headers: { authorization: `Bearer ${tablet}` } }),
      "192.0.2.33",
    );
    const { sessions } = (await listed.json()) as { sessions: Array<{ id: string; current: boolean; ip: string }> };
    expect(sessions).toHaveLength(3);
    const phoneId = sessions.find((s) => s.ip === "192.0.2.31")!.id;
    const one = await viaA(
      new Request(`${BASE_URL}/auth/revoke-session`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${tablet}` },
        body: JSON.stringify({ sessionId: phoneId }),
      }),
      "192.0.2.33",
    );
    expect(await one.json()).toEqual({ success: true });
    expect(await (await session(viaB, phone)).json()).toBeNull();
    // B signs out everywhere else from the laptop's cookie: the tablet is refused on A at once.
    const others = await viaB(
      new Request(`${BASE_URL}/auth/revoke-other-sessions`, {
        method: "POST",
        headers: { cookie: laptop, origin: BASE_URL },
      }),
      "192.0.2.30",
    );
    expect(await others.json()).toEqual({ revoked: 1 });
    expect(await (await session(viaA, tablet)).json()).toBeNull();
    const still = await viaA(
      new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie: laptop } }),
      "192.0.2.30",
    );
    expect(((await still.json()) as { user: { email: string } } | null)?.user.email).toBe(email);
  });

  it("an OTP code sent by one instance signs in once on the other and is spent for both", async () => {
    const email = "otto@workers.example";
    const sent = await viaA(
      new Request(`${BASE_URL}/auth/email-otp/send-verification-otp`, json({ email, purpose: "sign-in" })),
      "192.0.2.11",
    );
    expect(sent.status).toBe(200);
    const otp = await codeSentTo(email);
    const first = await viaB(new Request(`${BASE_URL}/auth/sign-in/email-otp`, json({ email, otp })), "192.0.2.11");
    expect(first.status).toBe(200);
    const replay = await viaA(new Request(`${BASE_URL}/auth/sign-in/email-otp`, json({ email, otp })), "192.0.2.11");
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe("INVALID_OTP");
  });

  it("one per-IP budget across instances: 10 sign-in attempts spread over both, the 11th is limited on either", async () => {
    const attempt = (via: typeof viaA) =>
      via(
        new Request(`${BASE_URL}/auth/sign-in/email`, json({ email: "not-an-email", password: "no email" })),
        "198.51.100.90",
      );
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt(i % 2 === 0 ? viaA : viaB)).status);
    expect(statuses).toEqual(Array(10).fill(400));
    for (const via of [viaA, viaB]) {
      const limited = await attempt(via);
      expect(limited.status).toBe(429);
      expect(((await limited.json()) as { code: string }).code).toBe("RATE_LIMITED");
    }
  });

  it("lockout counts wrong passwords on both instances: 5 failures spread over both lock the account on either", async () => {
    const email = "lin@workers.example";
    await signUp(email, "192.0.2.20");
    // A fresh address per attempt: only the identifier lockout is in play, not the per-IP limit.
    for (let i = 0; i < 5; i++) {
      const wrong = await signIn(i % 2 === 0 ? viaA : viaB, email, "wrong password!", `192.0.2.${30 + i}`);
      expect(wrong.status).toBe(401);
    }
    for (const [via, ip] of [
      [viaA, "192.0.2.40"],
      [viaB, "192.0.2.41"],
    ] as const) {
      const locked = await signIn(via, email, "correct horse battery", ip);
      expect(locked.status).toBe(429);
      expect(((await locked.json()) as { code: string }).code).toBe("ACCOUNT_LOCKED");
    }
  });
});

describe("social sign-in in workerd over D1, against oidc-provider reachable on loopback", () => {
  const viaA = edgeOf(() => worker);
  const viaB = edgeOf(() => other);
  /** Starts a flow on one instance: the provider's URL and the state cookie that binds it to this "browser". */
  async function start(via: typeof viaA, ip: string) {
    const res = await via(
      new Request(`${BASE_URL}/auth/sign-in/social`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ provider: "oidc", callbackURL: "/home", errorCallbackURL: "/sign-in" }),
      }),
      ip,
    );
    expect(res.status).toBe(200);
    const state = res.headers
      .getSetCookie()
      .find((l) => l.includes("latchkey_oauth_state="))!
      .split(";")[0]!;
    return { url: ((await res.json()) as { url: string }).url, state };
  }
  const callback = (via: typeof viaA, at: URL, state: string, ip: string) =>
    via(new Request(`${BASE_URL}/auth/callback/oidc${at.search}`, { headers: { cookie: state } }), ip);

  it("the code flow: a flow started on one instance ends on the other, signed in; the account is in D1; the code is spent", async () => {
    const who = { sub: "workers-sub-1", email: "social@workers.example", email_verified: true, name: "Ada" };
    idp.login(who);
    const flow = await start(viaA, "203.0.113.60");
    expect(new URL(flow.url).origin).toBe(idp.issuer);
    const back = await authorizeAt(flow.url);
    expect(back.origin + back.pathname).toBe(`${BASE_URL}/auth/callback/oidc`);
    // The callback lands on the other instance: the flow's state lives in D1, not in an isolate.
    const done = await callback(viaB, back, flow.state, "203.0.113.60");
    expect(done.status).toBe(302);
    expect(done.headers.get("location")).toBe(`${BASE_URL}/home`);
    // An https base URL: the session cookie carries the __Host- prefix.
    const session = done.headers
      .getSetCookie()
      .find((l) => l.startsWith("__Host-latchkey.session="))!
      .split(";")[0]!;
    const me = await viaA(new Request(`${BASE_URL}/auth/get-session`, { headers: { cookie: session } }));
    expect(((await me.json()) as { user: { email: string; emailVerified: boolean } }).user).toMatchObject({
      email: who.email,
      emailVerified: true,
    });
    const store = drizzleStore({ binding: await worker.d1("DB") });
    const linked = await store.socialAccounts.findByProviderAccount("oidc", who.sub);
    expect(linked?.user.email).toBe(who.email);
    // Provider tokens are sealed at rest in D1.
    expect(linked?.account.accessToken).toMatch(/^v1\./);
    // The same authorization response again (replayed on the first instance): the state is spent, no session.
    const replay = await callback(viaA, back, flow.state, "203.0.113.60");
    expect(replay.status).toBe(302);
    expect(replay.headers.get("location")).toBe(`${BASE_URL}/?error=OAUTH_STATE_MISMATCH`);
    expect(replay.headers.getSetCookie().some((l) => /^__Host-latchkey\.session=[^;]/.test(l))).toBe(false);
    expect(await store.sessions.listByUser(linked!.user.id)).toHaveLength(1);
  });

  it("one flow's callback delivered to both instances at once signs in exactly once", async () => {
    idp.login({ sub: "workers-sub-2", email: "race@workers.example", email_verified: true });
    const flow = await start(viaA, "203.0.113.61");
    const back = await authorizeAt(flow.url);
    const answers = await Promise.all([
      callback(viaA, back, flow.state, "203.0.113.61"),
      callback(viaB, back, flow.state, "203.0.113.61"),
    ]);
    const signedIn = answers.filter((r) => r.headers.get("location") === `${BASE_URL}/home`);
    expect(signedIn).toHaveLength(1);
    const store = drizzleStore({ binding: await worker.d1("DB") });
    const user = await store.users.findByEmail("race@workers.example");
    expect((await store.sessions.listByUser(user!.id)).length).toBe(1);
  });

  it("another browser's state cookie is refused (the flow is bound to the browser that started it)", async () => {
    idp.login({ sub: "workers-sub-3", email: "csrf@workers.example", email_verified: true });
    const mine = await start(viaA, "203.0.113.62");
    const theirs = await start(viaA, "203.0.113.62");
    const back = await authorizeAt(mine.url);
    const res = await callback(viaB, back, theirs.state, "203.0.113.62");
    // A state the cookie does not name belongs to no flow this browser started: its error callback is not trusted,
    // so the answer goes to the default one (the base URL).
    expect(res.headers.get("location")).toBe(`${BASE_URL}/?error=OAUTH_STATE_MISMATCH`);
    const store = drizzleStore({ binding: await worker.d1("DB") });
    expect(await store.users.findByEmail("csrf@workers.example")).toBeNull();
  });
});

describe("passkeys in workerd over D1 (two instances, software authenticator)", () => {
  const viaA = edgeOf(() => worker);
  const viaB = edgeOf(() => other);
  type Options = Parameters<SoftwareAuthenticator["create"]>[0] & Parameters<SoftwareAuthenticator["get"]>[0];
  // Bearer-mode requests (no Origin): the answers carry the challenge token and the session token.
  const post = (via: typeof viaA, path: string, body: unknown, token?: string) =>
    via(
      new Request(`${BASE_URL}/auth${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      }),
      "203.0.113.70",
    );
  const ceremony = async (res: Response) => {
    expect(res.status).toBe(200);
    return (await res.json()) as { options: Options; challengeToken: string };
  };
  const d1Store = async () => drizzleStore({ binding: await worker.d1("DB") });

  it("signs up with a passkey on one instance, signs in with it on the other; the rows are in D1", async () => {
    const device = new SoftwareAuthenticator({ origin: BASE_URL });
    const started = await ceremony(await post(viaA, "/passkey/sign-up/options", { email: "passkey@workers.example" }));
    expect(started.options).toMatchObject({ rp: { id: "workers.example" } });
    const response = await device.create(started.options);
    const signedUp = await post(viaB, "/passkey/sign-up/verify", { response, challengeToken: started.challengeToken });
    expect(signedUp.status).toBe(200);
    const { user } = (await signedUp.json()) as { user: { id: string } };
    const store = await d1Store();
    expect(await store.accounts.listByUser(user.id)).toEqual([]);
    const stored = await store.passkeys.listByUser(user.id);
    expect(stored.map((p) => p.credentialId)).toEqual([response.id]);

    const signIn = await ceremony(await post(viaB, "/passkey/authenticate/options", {}));
    const assertion = await device.get(signIn.options);
    const res = await post(viaA, "/passkey/authenticate/verify", {
      response: assertion,
      challengeToken: signIn.challengeToken,
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { user: { id: string } }).user.id).toBe(user.id);
    expect((await store.passkeys.listByUser(user.id))[0]!.lastUsedAt).not.toBeNull();
    // The same assertion again, on the other instance: the challenge is spent in D1.
    const replay = await post(viaB, "/passkey/authenticate/verify", {
      response: assertion,
      challengeToken: signIn.challengeToken,
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe("PASSKEY_CHALLENGE_INVALID");
  });

  it("one assertion sent to both instances at once signs in once; a passkey deleted on one is refused on the other", async () => {
    const device = new SoftwareAuthenticator({ origin: BASE_URL });
    const started = await ceremony(await post(viaA, "/passkey/sign-up/options", { email: "race-pk@workers.example" }));
    const signedUp = await post(viaA, "/passkey/sign-up/verify", {
      response: await device.create(started.options),
      challengeToken: started.challengeToken,
    });
    const { user, credentials } = (await signedUp.json()) as { user: { id: string }; credentials: { token: string } };
    // A second passkey (a security key), registered on the other instance.
    const key = new SoftwareAuthenticator({ origin: BASE_URL });
    const reg = await ceremony(await post(viaB, "/passkey/register/options", {}, credentials.token));
    const added = await post(
      viaB,
      "/passkey/register/verify",
      { response: await key.create(reg.options), challengeToken: reg.challengeToken, name: "Key" },
      credentials.token,
    );
    expect(added.status).toBe(200);
    const store = await d1Store();
    const sessionsBefore = (await store.sessions.listByUser(user.id)).length;

    const signIn = await ceremony(await post(viaA, "/passkey/authenticate/options", {}));
    const body = { response: await key.get(signIn.options), challengeToken: signIn.challengeToken };
    // Two workerd processes over one local SQLite file can meet its write lock: a 503 DATABASE_UNAVAILABLE, which a
    // client retries (as the two-factor race above does). The loser's retry finds the challenge spent.
    const verify = async (via: typeof viaA) => {
      for (let attempt = 0; ; attempt++) {
        const res = await post(via, "/passkey/authenticate/verify", body);
        if (res.status !== 503 || attempt === 5) return res;
        expect(((await res.json()) as { code: string }).code).toBe("DATABASE_UNAVAILABLE");
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    };
    const answers = await Promise.all([verify(viaA), verify(viaB)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    expect((await store.sessions.listByUser(user.id)).length).toBe(sessionsBefore + 1);

    const keyRow = (await store.passkeys.listByUser(user.id)).find((p) => p.name === "Key")!;
    const del = await viaB(
      new Request(`${BASE_URL}/auth/passkey/${keyRow.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${credentials.token}` },
      }),
    );
    expect(del.status).toBe(200);
    const again = await ceremony(await post(viaB, "/passkey/authenticate/options", {}));
    const refused = await post(viaA, "/passkey/authenticate/verify", {
      response: await key.get(again.options),
      challengeToken: again.challengeToken,
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe("UNKNOWN_PASSKEY");
    // The last passkey cannot go: the account has no password.
    const last = (await store.passkeys.listByUser(user.id))[0]!;
    const lastDel = await viaA(
      new Request(`${BASE_URL}/auth/passkey/${last.id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${credentials.token}` },
      }),
    );
    expect(lastDel.status).toBe(409);
  });
});
