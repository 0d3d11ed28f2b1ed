import { describe, expect, it } from "vitest";
import type { LogFields, Logger } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { createAuth } from "../create-auth.ts";
import { BASE_URL, TEST_SECRET } from "../../test/test-auth.ts";
import { isPrivateAddress, PROXY_HINT_REQUESTS } from "./proxy-hint.ts";

// Issue 49 item 3: behind a load balancer the socket's address is the balancer's, and every user shares one
// rate-limit budget. The default `fromSocket` in production says so, once, when the first requests all come from
// one private address.

function setup(environment: "production" | "development" = "production") {
  const warnings: Array<{ fields: LogFields; message: string }> = [];
  const ignore = () => undefined;
  const logger: Logger = {
    debug: ignore,
    info: ignore,
    error: ignore,
    warn: (fields, message) => void warnings.push({ fields, message }),
  };
  const auth = createAuth({ secret: TEST_SECRET, baseUrl: BASE_URL, database: memoryStore(), logger, environment });
  // What @hono/node-server passes: the Node request, whose socket has the peer address.
  const from = (remoteAddress: string) =>
    auth.handler(
      new Request(`${BASE_URL}/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL },
        body: JSON.stringify({ email: "nobody@example.com", password: "not the password" }),
      }),
      { incoming: { socket: { remoteAddress } } },
    );
  return { warnings, from };
}

describe("one private address for every request (a proxy taken for the client)", () => {
  it("production with the default fromSocket warns once through the logger, naming what to set", async () => {
    const { warnings, from } = setup();
    for (let i = 0; i < PROXY_HINT_REQUESTS - 1; i++) await from("10.0.3.7");
    expect(warnings).toEqual([]);
    for (let i = 0; i < PROXY_HINT_REQUESTS + 5; i++) await from("10.0.3.7");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.message).toMatch(
      /one private address.*fromForwardedFor\(hops\).*--proxy-hops.*LATCHKEY_PROXY_HOPS/,
    );
    expect(JSON.stringify(warnings)).not.toContain("10.0.3.7");
  });

  it("no warning for real clients (two addresses, or a public one), nor in development", async () => {
    const two = setup();
    await two.from("10.0.3.7");
    await two.from("10.0.3.8");
    for (let i = 0; i < PROXY_HINT_REQUESTS + 5; i++) await two.from("10.0.3.7");
    expect(two.warnings).toEqual([]);
    const remote = setup();
    for (let i = 0; i < PROXY_HINT_REQUESTS + 5; i++) await remote.from("203.0.113.9");
    expect(remote.warnings).toEqual([]);
    const dev = setup("development");
    for (let i = 0; i < PROXY_HINT_REQUESTS + 5; i++) await dev.from("127.0.0.1");
    expect(dev.warnings).toEqual([]);
  });

  it("knows the private ranges", () => {
    for (const ip of [
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "127.0.0.1",
      "100.64.0.1",
      "::1",
      "fd12:3456::1",
      "fe80::1",
      "::ffff:10.0.0.1",
    ])
      expect(isPrivateAddress(ip), ip).toBe(true);
    for (const ip of ["8.8.8.8", "172.32.0.1", "203.0.113.9", "2001:db8::1", "100.128.0.1"])
      expect(isPrivateAddress(ip), ip).toBe(false);
  });
});
