import { afterEach, describe, expect, it, vi } from "vitest";
import { apiKeys, auditLog, emailOtp, jwt, passkeys, type LogFields, type Logger } from "@latchkey/core";
import { bearer, createTestAuth } from "../../test/test-auth.ts";
import { MAX_BODY_DEPTH } from "../middleware/body-guard.ts";

// Deeply nested JSON: `JSON.parse` takes 10,000 levels, but everything after it that walks a value (the NUL check,
// validation, metadata serialization) recursed until the stack overflowed: `POST /api-key/create` with a 60 KB body
// nested 10,000 deep answered 500 and logged `RangeError: Maximum call stack size exceeded`, before any
// authentication. Every route, every depth, with and without a session: a 4xx, and nothing logged but at most one
// warning line.

interface Line {
  level: keyof Logger;
  message: string;
}

function captureLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: keyof Logger) => (_fields: LogFields, message: string) => void lines.push({ level, message });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

/** `{"a":{"a":...1...}}`, `[[...1...]]`, or the object chain under a field every feature knows (`metadata`). */
function nested(shape: "object" | "array" | "metadata", depth: number): string {
  if (shape === "array") return `${"[".repeat(depth)}1${"]".repeat(depth)}`;
  if (shape === "object") return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
  return `{"metadata":${nested("object", depth - 1)}}`;
}

afterEach(() => vi.restoreAllMocks());

describe("bodies nested 100, 1,000 and 10,000 deep, on every route", () => {
  it("answer 4xx (400 INVALID_REQUEST naming the depth limit), never 5xx, and log nothing past one warning", async () => {
    const logger = captureLogger();
    const t = createTestAuth({
      logger,
      plugins: [
        emailOtp({ emailChange: { enabled: true, verifyCurrentEmail: true } }),
        jwt(),
        apiKeys(),
        auditLog(),
        passkeys({ rpId: "app.example", rpName: "Example" }),
      ],
    });
    const { token } = await t.signUp("ada@example.com");
    const consoleLines: unknown[][] = [];
    for (const method of ["log", "info", "warn", "error", "debug"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleLines.push(args));

    const doc = (await (await t.request("GET", "/openapi.json")).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .map((method) => method.toUpperCase())
        // A GET or HEAD request cannot carry a body.
        .filter((method) => method !== "GET" && method !== "HEAD")
        .map((method) => ({ method, path: path.replace(/\{[^}]+\}/g, "x") })),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        { method: "POST", path: "/api-key/create" },
        { method: "POST", path: "/sign-in/email" },
        { method: "PATCH", path: "/user" },
        { method: "POST", path: "/passkey/authenticate/verify" },
        { method: "DELETE", path: "/passkey/x" },
      ]),
    );
    expect(operations.length).toBeGreaterThan(20);

    const expected = JSON.stringify({
      code: "INVALID_REQUEST",
      message: `The request body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
      details: [{ path: "body", message: `nested more than ${MAX_BODY_DEPTH} levels deep` }],
    });
    const notClientErrors: string[] = [];
    const otherAnswers: string[] = [];
    for (const { method, path } of operations)
      for (const depth of [100, 1000, 10_000])
        for (const shape of ["object", "array", "metadata"] as const)
          for (const headers of [{}, bearer(token)]) {
            const res = await t.request(method, path, { body: nested(shape, depth), headers });
            const answer = await res.text();
            const who = "authorization" in headers ? "session" : "anonymous";
            const line = `${method} ${path} ${shape} ${depth} ${who}: ${res.status} ${answer.slice(0, 120)}`;
            if (res.status < 400 || res.status >= 500) notClientErrors.push(line);
            else if (res.status !== 400 || answer !== expected) otherAnswers.push(line);
          }
    expect(notClientErrors).toEqual([]);
    expect(otherAnswers).toEqual([]);
    expect(logger.lines.filter((l) => l.level === "error")).toEqual([]);
    expect(logger.lines.filter((l) => l.level === "warn").length).toBeLessThanOrEqual(1);
    expect(consoleLines).toEqual([]);
  });

  it("the limit itself: a body at the limit reaches the route, one level deeper is refused; brackets in strings do not count", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    // `{"metadata":{"a":...{"a":1}}}`: the body object is level 1, metadata level 2.
    const atLimit = nested("metadata", MAX_BODY_DEPTH);
    const ok = await t.request("PATCH", "/user", { headers: bearer(token), body: atLimit });
    expect(ok.status).toBe(200);
    expect((await t.store.users.findById(userId))?.metadata).toEqual(JSON.parse(atLimit).metadata);

    const over = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: nested("metadata", MAX_BODY_DEPTH + 1),
    });
    expect(over.status).toBe(400);
    expect((await over.json()).code).toBe("INVALID_REQUEST");
    expect((await t.store.users.findById(userId))?.metadata).toEqual(JSON.parse(atLimit).metadata);

    // Brackets inside strings, escaped quotes included, are text: only the two real levels count.
    const text = `[{"\\"${"[{".repeat(100)}`;
    const shallow = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: { name: "Ada", metadata: { note: text } },
    });
    expect(shallow.status).toBe(200);
    expect((await t.store.users.findById(userId))?.metadata).toEqual({ note: text });
  });
});
