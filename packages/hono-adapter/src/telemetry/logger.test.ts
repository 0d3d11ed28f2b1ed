import { afterEach, describe, expect, it, vi } from "vitest";
import { jwt, pwnedPasswords, type LogFields, type Logger } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth } from "../../test/test-auth.ts";

interface Line {
  level: keyof Logger;
  fields: LogFields;
  message: string;
}

/** A pino-shaped logger that keeps every call. */
function captureLogger(): Logger & { lines: Line[] } {
  const lines: Line[] = [];
  const at = (level: keyof Logger) => (fields: LogFields, message: string) =>
    void lines.push({ level, fields, message });
  return { lines, debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

const consoleSpies = () =>
  (["log", "info", "warn", "error", "debug"] as const).map((m) =>
    vi.spyOn(console, m).mockImplementation(() => undefined),
  );

afterEach(() => vi.restoreAllMocks());

describe("createAuth({ logger })", () => {
  it("every line Latchkey writes (unexpected errors, failed emails, failed listeners, a failed set-auth-jwt) goes to the logger, none to the console", async () => {
    const logger = captureLogger();
    const store = memoryStore();
    const t = createTestAuth({
      store,
      logger,
      plugins: [jwt()],
      email: { sender: { send: async () => Promise.reject(new Error("smtp down")) } },
    });
    const { token } = await t.signUp("ada@example.com");
    const spies = consoleSpies();

    // A listener that throws: reported through the logger.
    t.auth.events.on("UserUpdated", () => {
      throw new Error("listener broke");
    });
    expect((await t.request("PATCH", "/user", { headers: bearer(token), body: { name: "Ada" } })).status).toBe(200);

    // A background email that fails.
    expect((await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } })).status).toBe(
      200,
    );
    await t.settle();

    // get-session still answers when the convenience JWT cannot be signed.
    const jwks = store.jwks!;
    const listKeys = jwks.list.bind(jwks);
    jwks.list = async () => Promise.reject(new Error("jwks unreadable"));
    expect((await t.request("GET", "/get-session", { headers: bearer(token) })).status).toBe(200);
    jwks.list = listKeys;

    // A store failure the routes did not expect: 500, logged.
    store.sessions.findByTokenHash = async () => Promise.reject(new Error("disk on fire"));
    expect((await t.request("GET", "/get-session", { headers: bearer(token) })).status).toBe(500);

    for (const spy of spies) expect(spy, spy.getMockName()).not.toHaveBeenCalled();
    const messages = logger.lines.map((l) => `${l.level} ${l.message} ${l.fields.error ?? ""}`);
    expect(messages).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^error event listener failed .*listener broke/),
        expect.stringMatching(/^error email "password-reset" could not be sent .*smtp down/),
        expect.stringMatching(/^error set-auth-jwt omitted .*jwks unreadable/),
        expect.stringMatching(/^error unexpected error .*disk on fire/),
      ]),
    );
    // Fields first, message second, never the address or the session token.
    const everything = JSON.stringify(logger.lines);
    expect(everything).not.toContain("ada@example.com");
    expect(everything).not.toContain(token);
  });

  it("the rate limiter's unknown-address warning and pwnedPasswords' unavailable warning go to the logger too", async () => {
    const logger = captureLogger();
    // A range API that is down: nothing listens on port 9 of the loopback.
    const t = createTestAuth({
      logger,
      environment: "development",
      getClientIp: () => null,
      emailPassword: { passwordPolicy: { check: pwnedPasswords({ endpoint: "http://127.0.0.1:9/range/" }) } },
    });
    const spies = consoleSpies();
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: "correct horse battery" },
    });
    expect(res.status).toBe(200);
    for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    const warnings = logger.lines.filter((line) => line.level === "warn").map((line) => line.message);
    expect(warnings).toEqual([
      expect.stringMatching(/getClientIp found no client address/),
      expect.stringMatching(/pwnedPasswords: the range API is unavailable/),
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain("correct horse battery");
  });

  it("a logger without the four methods is an AuthConfigError naming `logger`", () => {
    expect(() => createTestAuth({ logger: { info() {} } as unknown as Logger })).toThrow(/logger/);
  });

  it("without one, the console gets the same lines, prefixed [latchkey]", async () => {
    const store = memoryStore();
    const t = createTestAuth({ store });
    const { token } = await t.signUp("ada@example.com");
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    store.sessions.findByTokenHash = async () => Promise.reject(new Error("disk on fire"));
    expect((await t.request("GET", "/get-session", { headers: bearer(token) })).status).toBe(500);
    expect(error.mock.calls.map((c) => String(c[0]))).toEqual([
      expect.stringMatching(/^\[latchkey\] unexpected error: .*disk on fire/),
    ]);
  });
});
