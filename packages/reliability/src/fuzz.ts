// The fuzzer of reliability-fuzz.test.ts: requests built from the OpenAPI document with a seeded random source, and
// bodies nested deep on every state-changing route.
// The fuzzer's seed: printed with any failure, so a failing run can be replayed (LATCHKEY_FUZZ_SEED=...).
export const FUZZ_SEED = Number(process.env.LATCHKEY_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
export const FUZZ_REQUESTS = 2000;

type Rand = () => number;
type FuzzInit = { body?: unknown; rawBody?: string; headers: Record<string, string> };

const STRINGS = [
  "",
  " ",
  "ada@example.com",
  "' or 1=1 --",
  '"; drop table users; --',
  "\u0000",
  "a\u0000b",
  "é",
  "💥",
  "\ud800",
  "a".repeat(300),
  "x@y",
  "-1",
  "999999999999999999999",
  "null",
  "__proto__",
  "sign-in",
  "password-reset",
  "123456",
];
const pickOf = <T>(rand: Rand, list: readonly T[]): T => list[Math.floor(rand() * list.length)]!;
const bytes = (rand: Rand, n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
function randomString(rand: Rand): string {
  if (rand() < 0.5) return pickOf(rand, STRINGS);
  return bytes(rand, Math.floor(rand() * 48)).toString(rand() < 0.5 ? "base64url" : "latin1");
}
// Header values must be valid ByteStrings without control characters (fetch refuses others before sending).
const headerString = (rand: Rand) => bytes(rand, Math.floor(rand() * 60)).toString("base64url");
const FIELDS = [
  "email",
  "password",
  "otp",
  "purpose",
  "token",
  "key",
  "keyId",
  "name",
  "username",
  "image",
  "metadata",
  "permissions",
  "newPassword",
  "currentPassword",
  "newEmail",
  "remaining",
  "expiresIn",
  "enabled",
  "prefix",
  "callbackURL",
  "redirectTo",
  "__proto__",
  "constructor",
];
function fuzzValue(rand: Rand, depth: number, object = false): unknown {
  const r = rand();
  if (object || (depth > 0 && r < 0.3)) {
    const out: Record<string, unknown> = {};
    const n = Math.floor(rand() * 6);
    for (let i = 0; i < n; i++) out[pickOf(rand, FIELDS)] = fuzzValue(rand, depth - 1);
    return out;
  }
  if (depth > 0 && r < 0.4) return Array.from({ length: Math.floor(rand() * 4) }, () => fuzzValue(rand, depth - 1));
  if (r < 0.5) return rand() < 0.5 ? Math.floor(rand() * 2 ** 40) - 2 ** 39 : rand() * 1e6;
  if (r < 0.6) return rand() < 0.5;
  if (r < 0.65) return null;
  return randomString(rand);
}

/** Percent-encodes; a lone surrogate (which encodeURIComponent refuses) is sent as the invalid UTF-8 it would be. */
function encodeQuery(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return `${encodeURIComponent(value.replace(/[\ud800-\udfff]/g, ""))}%ED%A0%80`;
  }
}

/** One request: a documented operation (sometimes with the wrong method), fuzzed body, query and credentials. */
export function fuzzRequest(
  rand: Rand,
  ops: Array<{ path: string; method: string }>,
  token: string,
  i: number,
): { method: string; path: string; init: FuzzInit } {
  const op = pickOf(rand, ops);
  const roll = rand();
  const headers: Record<string, string> = {};
  if (roll < 0.4) headers.authorization = `Bearer ${token}`;
  else if (roll < 0.5) headers.authorization = `Bearer ${headerString(rand)}`;
  if (rand() < 0.2) headers["x-api-key"] = headerString(rand);
  const method = rand() < 0.05 ? ["GET", "POST", "PATCH", "DELETE", "PUT"][i % 5]! : op.method;
  const init: FuzzInit =
    method !== "GET" && rand() < 0.1
      ? {
          rawBody: randomString(rand),
          headers: { ...headers, "content-type": rand() < 0.5 ? "application/json" : "text/plain" },
        }
      : method === "GET"
        ? { headers }
        : { body: fuzzValue(rand, 3, true), headers };
  const query =
    method === "GET" && rand() < 0.5
      ? `?limit=${encodeQuery(String(fuzzValue(rand, 0)))}&cursor=${encodeQuery(randomString(rand))}`
      : "";
  return { method, path: `/auth${op.path}${query}`, init };
}

/** Anonymous, and with a session. */
const CREDENTIALS = (token: string): Array<Record<string, string>> => [{}, { authorization: `Bearer ${token}` }];

/**
 * Every state-changing operation with bodies nested 100, 1,000 and 10,000 deep (objects, arrays, and objects under
 * `metadata`), anonymous and with a session: each must be a 4xx (JSON.parse takes the depth; code after it that
 * walks a value must never see it).
 */
export function deepBodyRequests(
  ops: Array<{ path: string; method: string }>,
  token: string,
): Array<{ method: string; path: string; init: FuzzInit }> {
  const nest = (open: string, close: string, depth: number) => `${open.repeat(depth)}1${close.repeat(depth)}`;
  return ops
    .filter((op) => op.method !== "GET")
    .flatMap((op) =>
      [100, 1000, 10_000].flatMap((depth) =>
        [nest('{"a":', "}", depth), nest("[", "]", depth), `{"metadata":${nest('{"a":', "}", depth - 1)}}`].flatMap(
          (rawBody) =>
            CREDENTIALS(token).map((credentials) => ({
              method: op.method,
              path: `/auth${op.path}`,
              init: { rawBody, headers: { ...credentials, "content-type": "application/json" } },
            })),
        ),
      ),
    );
}

// The outage, kill -9 and fuzz scenarios run once (database counters); the Redis variant repeats the rest with a
