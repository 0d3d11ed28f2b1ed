import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { AuthConfigError, emailOtp, hashSecret, pwnedPasswords, type PasswordCheck } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";
const BREACHED = "password1234";
const sha1 = (text: string) => createHash("sha1").update(text).digest("hex").toUpperCase();

/** A loopback server that speaks the Have I Been Pwned range API, and records what it was asked. */
interface RangeServer {
  url: string;
  requests: Array<{ path: string; padding: string | undefined; body: string }>;
  mode: "ok" | "500" | "hang";
}

let range: RangeServer;
let server: Server;

beforeAll(async () => {
  const breached = sha1(BREACHED);
  range = { url: "", requests: [], mode: "ok" };
  server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      range.requests.push({ path: req.url ?? "", padding: req.headers["add-padding"] as string | undefined, body });
      if (range.mode === "hang") return; // never answers: the client's timeout must end the wait
      if (range.mode === "500") {
        res.writeHead(500).end("down");
        return;
      }
      const prefix = (req.url ?? "").split("/").pop() ?? "";
      const lines = ["0018A45C4D1DEF81644B54AB7F969B88D65:1", "00D4F6E8FA6EECAD2A3AA415EEC418D38EC:0"];
      if (breached.startsWith(prefix)) lines.push(`${breached.slice(5)}:3861493`);
      // A padding row of the real suffix with count 0 would not count as a breach.
      res.writeHead(200, { "content-type": "text/plain" }).end(lines.join("\r\n"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  range.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

afterEach(() => {
  range.mode = "ok";
  range.requests.length = 0;
  vi.restoreAllMocks();
});

const withPolicy = (check: PasswordCheck, extra: Parameters<typeof createTestAuth>[0] = {}) =>
  createTestAuth({ ...extra, emailPassword: { passwordPolicy: { check } } });

async function code(res: Response): Promise<string> {
  return ((await res.json()) as { code: string }).code;
}

describe("pwnedPasswords() against a loopback range API", () => {
  it("refuses a breached password at sign-up with 400 PASSWORD_COMPROMISED; only 5 hex characters leave, padded", async () => {
    const t = withPolicy(pwnedPasswords({ endpoint: range.url }));
    const res = await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: BREACHED } });
    expect(res.status).toBe(400);
    expect(await code(res)).toBe("PASSWORD_COMPROMISED");
    expect(await t.store.users.findByEmail("ada@example.com")).toBeNull();
    expect(range.requests).toEqual([{ path: `/range/${sha1(BREACHED).slice(0, 5)}`, padding: "true", body: "" }]);
    expect(JSON.stringify(range.requests)).not.toContain(sha1(BREACHED).slice(5));
    // A password not in the answer passes.
    expect(
      (await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } })).status,
    ).toBe(200);
  });

  it("refuses at change-password, reset (link and code) and set-password, and changes nothing", async () => {
    const t = withPolicy(pwnedPasswords({ endpoint: range.url }), {
      plugins: [emailOtp()],
      session: { freshAge: null },
    });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD);
    const accounts = await t.store.accounts.listByUser(userId);

    const change = await t.request("POST", "/change-password", {
      headers: bearer(token),
      body: { currentPassword: PASSWORD, newPassword: BREACHED },
    });
    expect([change.status, await code(change)]).toEqual([400, "PASSWORD_COMPROMISED"]);

    await t.request("POST", "/request-password-reset", { body: { email: "ada@example.com" } });
    const link = t.auth.getOtp("ada@example.com")!;
    const reset = await t.request("POST", "/reset-password", { body: { token: link, newPassword: BREACHED } });
    expect([reset.status, await code(reset)]).toEqual([400, "PASSWORD_COMPROMISED"]);

    await t.request("POST", "/email-otp/send-verification-otp", {
      body: { email: "ada@example.com", purpose: "password-reset" },
    });
    const otp = t.auth.getOtp("ada@example.com")!;
    const otpReset = await t.request("POST", "/email-otp/reset-password", {
      body: { email: "ada@example.com", otp, password: BREACHED },
    });
    expect([otpReset.status, await code(otpReset)]).toEqual([400, "PASSWORD_COMPROMISED"]);

    expect(await t.store.accounts.listByUser(userId)).toEqual(accounts);
    expect(await t.store.sessions.findByTokenHash(hashSecret(token))).not.toBeNull();

    // set-password: an account without a password.
    await t.store.accounts.deleteAllExcept(userId, "EMAIL_OTP");
    const set = await t.request("POST", "/set-password", { headers: bearer(token), body: { newPassword: BREACHED } });
    expect([set.status, await code(set)]).toEqual([400, "PASSWORD_COMPROMISED"]);
    expect(await t.store.accounts.listByUser(userId)).toEqual([]);
    // The sign-up, then the four refusals.
    expect(range.requests.length).toBe(5);
  });

  it('onUnavailable "allow" (default) accepts and logs when the API fails or hangs past the timeout', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const t = withPolicy(pwnedPasswords({ endpoint: range.url, timeout: 1 }));
    range.mode = "500";
    const first = await t.request("POST", "/sign-up/email", { body: { email: "a@example.com", password: BREACHED } });
    expect(first.status).toBe(200);
    range.mode = "hang";
    const second = await t.request("POST", "/sign-up/email", { body: { email: "b@example.com", password: BREACHED } });
    expect(second.status).toBe(200);
    expect(warn).toHaveBeenCalledTimes(2);
    expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).not.toContain(BREACHED);
  });

  it('onUnavailable "deny" refuses with 503 PASSWORD_CHECK_UNAVAILABLE and writes nothing', async () => {
    const t = withPolicy(pwnedPasswords({ endpoint: range.url, onUnavailable: "deny" }));
    range.mode = "500";
    const res = await t.request("POST", "/sign-up/email", { body: { email: "a@example.com", password: PASSWORD } });
    expect([res.status, await code(res)]).toEqual([503, "PASSWORD_CHECK_UNAVAILABLE"]);
    expect(await t.store.users.findByEmail("a@example.com")).toBeNull();
  });

  it("its options are closed and checked", () => {
    expect(() => pwnedPasswords({ endpiont: "x" } as never)).toThrow(AuthConfigError);
    expect(() => pwnedPasswords({ endpoint: "not a url" })).toThrow(/pwnedPasswords.endpoint/);
    expect(() => pwnedPasswords({ onUnavailable: "maybe" as never })).toThrow(/onUnavailable/);
  });
});

describe("emailPassword.passwordPolicy", () => {
  it("check: a returned message is 400 WEAK_PASSWORD with that message; it sees the user", async () => {
    const seen: unknown[] = [];
    const t = withPolicy((password, user) => {
      seen.push(user);
      return password.includes(user.email.split("@")[0]!) ? "Do not use your email in the password" : undefined;
    });
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: "ada is my password", name: "Ada" },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ code: "WEAK_PASSWORD", message: "Do not use your email in the password" });
    expect(seen).toEqual([{ id: null, email: "ada@example.com", name: "Ada", username: null }]);
    expect(await t.store.users.findByEmail("ada@example.com")).toBeNull();
  });

  it("minLength / maxLength, and the old names still work; both names at once are refused", async () => {
    const t = createTestAuth({ emailPassword: { passwordPolicy: { minLength: 12, maxLength: 20 } } });
    const short = await t.request("POST", "/sign-up/email", {
      body: { email: "a@example.com", password: "elevenchars" },
    });
    expect(await code(short)).toBe("PASSWORD_TOO_SHORT");
    const long = await t.request("POST", "/sign-up/email", {
      body: { email: "a@example.com", password: "x".repeat(21) },
    });
    expect(await code(long)).toBe("PASSWORD_TOO_LONG");
    const old = createTestAuth({ emailPassword: { minPasswordLength: 12 } });
    const oldShort = await old.request("POST", "/sign-up/email", {
      body: { email: "a@example.com", password: "elevenchars" },
    });
    expect(await code(oldShort)).toBe("PASSWORD_TOO_SHORT");
    expect(() =>
      createTestAuth({ emailPassword: { minPasswordLength: 10, passwordPolicy: { minLength: 12 } } }),
    ).toThrow(AuthConfigError);
    expect(() => createTestAuth({ emailPassword: { passwordPolicy: { check: "strong" as never } } })).toThrow(
      /passwordPolicy.check must be a function/,
    );
  });
});
