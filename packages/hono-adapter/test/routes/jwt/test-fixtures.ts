import { execFile } from "node:child_process";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { serve } from "@hono/node-server";
import type { FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import type { Auth } from "../../../src/create-auth.ts";
import { bearer, type TestAuth } from "../../test-auth.ts";

/** Debian's interpreter: the pyenv python first on PATH has no python3-jwt. */
const SYSTEM_PYTHON = "/usr/bin/python3";

/** Serves `auth.handler` over real HTTP on an ephemeral port (tests only). */
export async function startHttpServer(auth: Auth): Promise<{ url: string; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve(
      { fetch: (request) => auth.handler(request), port: 0, hostname: "127.0.0.1" },
      (info: AddressInfo) => {
        resolve({
          url: `http://127.0.0.1:${info.port}`,
          close: () => new Promise<void>((done) => server.close(() => done())),
        });
      },
    );
  });
}

function run(file: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 20_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 127) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Whether Debian's python3-jwt and python3-cryptography are importable. */
export async function pyjwtAvailable(): Promise<boolean> {
  return (await run(SYSTEM_PYTHON, ["-c", "import jwt, cryptography"])).code === 0;
}

/** Runs pyjwt-verify.py: the claims on success, or null with PyJWT's reason. */
export async function verifyWithPyJwt(
  jwksUrl: string,
  token: string,
  alg: string,
  issuer: string,
  audience: string,
): Promise<{ claims: Record<string, unknown> | null; reason: string }> {
  const script = fileURLToPath(new URL("./pyjwt-verify.py", import.meta.url));
  const { code, stdout, stderr } = await run(SYSTEM_PYTHON, [script, jwksUrl, token, alg, issuer, audience]);
  if (code === 3) throw new Error("PyJWT disappeared between the availability check and the run");
  return code === 0
    ? { claims: JSON.parse(stdout) as Record<string, unknown>, reason: "" }
    : { claims: null, reason: stderr.trim() };
}

/** Signs up a user and exchanges the session for a JWT over HTTP. */
export async function issueToken(
  t: TestAuth,
  email = "ada@example.com",
): Promise<{ token: string; userId: string; session: string }> {
  const { token: session, userId } = await t.signUp(email);
  const res = await t.request("POST", "/token", { headers: bearer(session) });
  if (res.status !== 200) throw new Error(`/token answered ${res.status}: ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { token, userId, session };
}

/** The decoded header and payload of a compact JWS (no verification). */
export function decodeParts(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [h, p] = token.split(".");
  const decode = (part: string | undefined) =>
    JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  return { header: decode(h), payload: decode(p) };
}

/** Members a public JWK must never carry. */
export const PRIVATE_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "k"] as const;

/** The memory store with counters on the key port, to prove what the hot path does not do. */
export function countingStore(): { store: FullStore; calls: { list: number; insert: number } } {
  const inner = memoryStore();
  const calls = { list: 0, insert: 0 };
  const jwks: FullStore["jwks"] = {
    ...inner.jwks,
    list: () => (calls.list++, inner.jwks.list()),
    insert: (record) => (calls.insert++, inner.jwks.insert(record)),
  };
  return { store: { ...inner, jwks }, calls };
}

/** The `token` of a 200 /token answer. */
export async function tokenOf(res: Response): Promise<string> {
  if (res.status !== 200) throw new Error(`/token answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** The kids /jwks publishes, in order. */
export async function publishedKids(t: TestAuth): Promise<string[]> {
  return ((await (await t.request("GET", "/jwks")).json()) as { keys: Array<{ kid: string }> }).keys.map((k) => k.kid);
}
