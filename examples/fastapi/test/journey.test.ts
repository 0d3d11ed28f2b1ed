// The example from outside: `latchkey serve` on PostgreSQL and the FastAPI service under uvicorn, two processes,
// driven over HTTP like a Python team's clients would: sign up and get a JWT from Latchkey, call /me, rotate the
// signing key and keep working, create an API key and call /reports, revoke the key and be refused.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { generateKeyPair, SignJWT } from "jose";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestPostgresDatabase, type TestDatabase } from "@latchkey/test-support";
import { KEY_CACHE_TTL_MS } from "./latchkey.test.config.ts";
import { freePort, PYTHON, requirePython, startProcess, waitForOutput, type Proc } from "./processes.ts";

const example = fileURLToPath(new URL("..", import.meta.url));
const cli = fileURLToPath(new URL("../node_modules/@latchkey/cli/dist/bin.js", import.meta.url));
const PUBLIC_URL = "https://auth.example.test";
const SECRET = "fastapi-example-secret-0123456789abcdef-0123";
// The FastAPI side's caches, short so the test can wait them out (the defaults are 10 s).
const API_KEY_CACHE_MS = 1000;
const JWKS_MIN_REFETCH_MS = 1000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let db: TestDatabase;
let latchkey: Proc;
let api: Proc;
let auth: string;
let fastapi: string;

const env = () => ({
  LATCHKEY_SECRET: SECRET,
  LATCHKEY_BASE_URL: PUBLIC_URL,
  LATCHKEY_DATABASE_URL: db.url,
});

beforeAll(async () => {
  requirePython();
  db = await createTestPostgresDatabase();
  const migrated = spawnSync(process.execPath, [cli, "migrate", "--database", db.url], { encoding: "utf8" });
  expect(migrated.status, migrated.stderr).toBe(0);
  latchkey = startProcess(
    process.execPath,
    [cli, "serve", "--config", "test/latchkey.test.config.ts", "--port", "0"],
    example,
    env(),
  );
  const [, url] = await waitForOutput(latchkey, /latchkey listening on (http:\/\/\S+)/);
  auth = `${url}/auth`;
  const port = await freePort();
  api = startProcess(
    PYTHON,
    ["-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", String(port)],
    example,
    {
      LATCHKEY_URL: auth,
      LATCHKEY_ISSUER: PUBLIC_URL,
      API_KEY_CACHE_SECONDS: String(API_KEY_CACHE_MS / 1000),
      JWKS_MIN_REFETCH_SECONDS: String(JWKS_MIN_REFETCH_MS / 1000),
    },
  );
  await waitForOutput(api, /Uvicorn running on/);
  fastapi = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  // Both end cleanly on SIGTERM (Latchkey drains and closes its pool).
  if (api) await api.stop();
  if (latchkey) expect(await latchkey.stop()).toBe(0);
  await db?.dispose();
});

async function post<T>(path: string, body: unknown, token?: string): Promise<{ status: number; body: T }> {
  const res = await fetch(`${auth}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function jwtFor(session: string): Promise<string> {
  const res = await post<{ token: string }>("/token", {}, session);
  expect(res.status).toBe(200);
  return res.body.token;
}

async function call(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${fastapi}${path}`, { headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const kidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString()) as { kid: string }).kid;

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<T[]> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

describe("a FastAPI service protected by latchkey serve", () => {
  let session: string;
  let userId: string;

  it("the Python side's own unit tests pass (caches, refetch limits, claim checks)", () => {
    const result = spawnSync(PYTHON, ["-m", "unittest", "discover", "-s", "tests", "-t", "."], {
      cwd: example,
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Ran \d+ tests[\s\S]*OK/);
  });

  it("/me: a Latchkey JWT is verified by PyJWT against the cached /jwks; no token, a foreign key or alg none are 401", async () => {
    const signUp = await post<{ user: { id: string }; credentials: { token: string } }>("/sign-up/email", {
      email: "py@example.com",
      password: "a long enough password",
    });
    expect(signUp.status).toBe(200);
    session = signUp.body.credentials.token;
    userId = signUp.body.user.id;
    const token = await jwtFor(session);
    expect(await call("/me", { authorization: `Bearer ${token}` })).toEqual({
      status: 200,
      body: { id: userId, email: "py@example.com", emailVerified: false },
    });

    expect(await call("/me")).toMatchObject({ status: 401, body: { code: "UNAUTHENTICATED" } });
    const { privateKey } = await generateKeyPair("EdDSA");
    const forged = await new SignJWT({ sub: userId, sid: "x" })
      .setProtectedHeader({ alg: "EdDSA", kid: kidOf(token), typ: "JWT" })
      .setIssuer(PUBLIC_URL)
      .setAudience(PUBLIC_URL)
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(privateKey);
    expect(await call("/me", { authorization: `Bearer ${forged}` })).toMatchObject({
      status: 401,
      body: { code: "INVALID_JWT" },
    });
    const none = `${Buffer.from(JSON.stringify({ alg: "none", kid: kidOf(token) })).toString("base64url")}.${Buffer.from(JSON.stringify({ sub: userId })).toString("base64url")}.`;
    expect(await call("/me", { authorization: `Bearer ${none}` })).toMatchObject({ status: 401 });
  });

  it("rotating the signing key: new tokens carry the new kid and work (FastAPI refetches /jwks), old tokens keep working", async () => {
    const before = await jwtFor(session);
    expect((await call("/me", { authorization: `Bearer ${before}` })).status).toBe(200);
    // The operator rotates with the CLI, from another process on the same database.
    const rotated = spawnSync(process.execPath, [cli, "rotate-jwks", "--config", "test/latchkey.test.config.ts"], {
      cwd: example,
      env: { ...process.env, ...env() },
      encoding: "utf8",
    });
    expect(rotated.status, rotated.stderr).toBe(0);
    const kid = /new signing key (\S+);/.exec(rotated.stdout)![1];
    expect(await query("select id from jwks where retired_at is null", [])).toEqual([{ id: kid }]);
    // latchkey serve picks the new key up within its keyCacheTtl; FastAPI refetches an unknown kid at most once
    // per JWKS_MIN_REFETCH_SECONDS.
    await sleep(Math.max(KEY_CACHE_TTL_MS, JWKS_MIN_REFETCH_MS) + 100);
    const after = await jwtFor(session);
    expect(kidOf(after)).toBe(kid);
    expect(kidOf(after)).not.toBe(kidOf(before));
    expect((await call("/me", { authorization: `Bearer ${after}` })).body).toMatchObject({ id: userId });
    expect((await call("/me", { authorization: `Bearer ${before}` })).body).toMatchObject({ id: userId });
  });

  it("/reports: an API key with reports:read works; without the permission 403 until it is granted (no negative cache); revoked, refused", async () => {
    const created = await post<{ key: string; apiKey: { id: string } }>(
      "/api-key/create",
      { name: "reports", permissions: { reports: ["read"] } },
      session,
    );
    expect(created.status).toBe(200);
    const headers = { "x-api-key": created.body.key };
    expect(await call("/reports", headers)).toMatchObject({
      status: 200,
      body: { owner: userId, key: created.body.apiKey.id },
    });
    expect((await call("/reports", headers)).status).toBe(200);
    expect(await call("/reports")).toMatchObject({ status: 401, body: { code: "INVALID_API_KEY" } });
    expect(await call("/reports", { "x-api-key": `lk_${"x".repeat(40)}` })).toMatchObject({
      status: 401,
      body: { code: "INVALID_API_KEY" },
    });

    const bare = await post<{ key: string; apiKey: { id: string } }>("/api-key/create", { name: "bare" }, session);
    expect(await call("/reports", { "x-api-key": bare.body.key })).toMatchObject({
      status: 403,
      body: { code: "INSUFFICIENT_PERMISSIONS" },
    });
    const granted = await post(
      "/api-key/update",
      { keyId: bare.body.apiKey.id, permissions: { reports: ["read"] } },
      session,
    );
    expect(granted.status).toBe(200);
    expect((await call("/reports", { "x-api-key": bare.body.key })).status).toBe(200);

    // Revoked: gone from the database; refused once the FastAPI side's short positive cache has run out.
    expect((await post("/api-key/delete", { keyId: created.body.apiKey.id }, session)).status).toBe(200);
    expect(await query("select id from api_keys where id = $1", [created.body.apiKey.id])).toEqual([]);
    await sleep(API_KEY_CACHE_MS + 100);
    expect(await call("/reports", headers)).toMatchObject({ status: 401, body: { code: "INVALID_API_KEY" } });
  });

  it("after sign-out the session is gone but an issued JWT stays valid until it expires (stateless, as documented)", async () => {
    const token = await jwtFor(session);
    expect((await post("/sign-out", {}, session)).status).toBe(200);
    expect((await post("/token", {}, session)).status).toBe(401);
    expect((await call("/me", { authorization: `Bearer ${token}` })).status).toBe(200);
  });

  it("latchkey serve logged one line per request, without tokens, keys or passwords", () => {
    const lines = latchkey
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{"));
    expect(lines.length).toBeGreaterThan(10);
    expect(lines.filter((l) => l.includes('"path":"/auth/api-key/verify"')).length).toBeGreaterThan(0);
    expect(latchkey.output()).not.toMatch(/lk_[A-Za-z0-9]{40}|eyJ|a long enough password/);
  });
});
