import { once } from "node:events";
import { connect } from "node:net";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrate } from "../migrate/index.ts";
import { createTestPostgresDatabase } from "@latchkey/test-support";
import { fixture, serve, signUp } from "./test-fixtures.ts";

describe("latchkey serve", { timeout: 60_000 }, () => {
  it("SIGTERM on PostgreSQL: the requests in flight finish and are stored, new connections are refused, the pool closes and the process ends with 0", async () => {
    const db = await createTestPostgresDatabase();
    try {
      await migrate(db.url);
      const server = await serve(["--config", fixture("server.config.ts")], {
        DATABASE_URL: db.url,
        HASH_GATE: "1500",
      });
      const emails = Array.from({ length: 4 }, (_, i) => `drain-${i}@example.com`);
      const answers = emails.map((email) => signUp(server.url, email));
      // Every sign-up is inside the server (hashing its password) before the signal.
      while (server.stderr().split("HASHING").length - 1 < emails.length) await new Promise((r) => setTimeout(r, 20));
      server.child.kill("SIGTERM");
      while (!server.stdout().includes("SIGTERM: finishing")) await new Promise((r) => setTimeout(r, 20));
      await expect(fetch(`${server.url}/health`)).rejects.toThrow();
      const statuses = await Promise.all(answers.map(async (a) => (await a).status));
      expect(statuses).toEqual([200, 200, 200, 200]);
      // Exits by itself: a pool left open would keep the process alive past the test's timeout.
      expect(await server.exit).toBe(0);
      expect(server.stdout()).toContain("latchkey stopped");
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query<{ email: string }>(
        "select email from users where email like 'drain-%' order by email",
      );
      await client.end();
      expect(rows.map((r) => r.email)).toEqual(emails);
    } finally {
      await db.dispose();
    }
  });

  it("SIGTERM: a connection opened before the signal whose request arrives after it is answered (with connection: close), an idle keep-alive one is closed", async () => {
    const server = await serve(["--config", fixture("object.config.mjs")]);
    const { port } = new URL(server.url);
    const open = async () => {
      const socket = connect(Number(port), "127.0.0.1");
      await once(socket, "connect");
      let text = "";
      socket.on("data", (d: Buffer) => void (text += d.toString()));
      const closed = once(socket, "close");
      return { socket, text: () => text, closed };
    };
    const request = "GET /api/auth/get-session HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";
    // One keep-alive connection that has carried a request and now waits for the next.
    const idle = await open();
    idle.socket.write(request);
    while (!idle.text().includes("\r\n\r\n")) await new Promise((r) => setTimeout(r, 10));
    // One the server accepted whose request is still on its way.
    const fresh = await open();
    fresh.socket.on("error", () => undefined);
    server.child.kill("SIGTERM");
    while (!server.stdout().includes("SIGTERM: finishing")) await new Promise((r) => setTimeout(r, 10));
    await idle.closed;
    fresh.socket.write(request);
    await fresh.closed;
    expect(fresh.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(fresh.text().toLowerCase()).toContain("connection: close");
    expect(await server.exit).toBe(0);
  });
});
