import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pwnedPasswords } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";

// Issue 48 item 19: a range API that answers 200 with something that is not a range list (a proxy's block page,
// a captive portal, an empty body) checked nothing: "deny" refuses the password as unavailable, "allow" warns.

const BREACHED = "password1234";
let body = "";
let server: Server;
let url = "";

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const answers = [
  "<html><body>Access to this site is blocked by your organisation's proxy.</body></html>",
  "",
  "OK",
  "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n<html>",
];

describe("pwnedPasswords(): a 200 that is not a range list", () => {
  it('"deny" answers 503 PASSWORD_CHECK_UNAVAILABLE and creates no account, for each such answer', async () => {
    const t = createTestAuth({
      emailPassword: { passwordPolicy: { check: pwnedPasswords({ endpoint: url, onUnavailable: "deny" }) } },
    });
    for (const [i, answer] of answers.entries()) {
      body = answer;
      const email = `shape${i}@example.com`;
      const res = await t.request("POST", "/sign-up/email", { body: { email, password: BREACHED } });
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([503, "PASSWORD_CHECK_UNAVAILABLE"]);
      expect(await t.store.users.findByEmail(email)).toBeNull();
    }
  });

  it('"allow" accepts with a warning; a well-formed range list without the password is a pass, silently', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const t = createTestAuth({ emailPassword: { passwordPolicy: { check: pwnedPasswords({ endpoint: url }) } } });
      body = answers[0] as string;
      const blocked = await t.request("POST", "/sign-up/email", {
        body: { email: "a@example.com", password: BREACHED },
      });
      expect(blocked.status).toBe(200);
      const warnings = warn.mock.calls.length;
      body = "0018A45C4D1DEF81644B54AB7F969B88D65:1\r\n00D4F6E8FA6EECAD2A3AA415EEC418D38EC:0\r\n";
      const ok = await t.request("POST", "/sign-up/email", { body: { email: "b@example.com", password: BREACHED } });
      expect(ok.status).toBe(200);
      expect(warn.mock.calls.length).toBe(warnings);
    } finally {
      warn.mockRestore();
    }
  });
});
