import { describe, expect, it } from "vitest";
import { bearer, cookieHeaders, createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, signIn } from "../../../test/routes/account/test-fixtures.ts";

describe("PATCH /user", () => {
  it("needs a session", async () => {
    const t = createTestAuth();
    const res = await t.request("PATCH", "/user", { body: { name: "Eve" } });
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("INVALID_CREDENTIALS");
  });

  it("updates name, image and metadata, keeps omitted fields, clears with null and {}", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, {
      name: "Ada",
      image: "https://img.example/a.png",
    });
    const seen: Array<{ type: string; fields?: string[] }> = [];
    t.auth.events.on("UserUpdated", (e) => void seen.push(e));

    const first = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: { name: "Ada L.", metadata: { plan: "pro", seats: 3 } },
    });
    expect(first.status).toBe(200);
    expect((await first.json()).user).toMatchObject({
      id: userId,
      name: "Ada L.",
      image: "https://img.example/a.png",
      metadata: { plan: "pro", seats: 3 },
    });
    let stored = await t.store.users.findById(userId);
    expect(stored).toMatchObject({
      name: "Ada L.",
      image: "https://img.example/a.png",
      metadata: { plan: "pro", seats: 3 },
    });

    // metadata replaces the whole object (seats goes), omitted name stays.
    await t.request("PATCH", "/user", { headers: bearer(token), body: { metadata: { theme: "dark" } } });
    expect((await t.store.users.findById(userId))!.metadata).toEqual({ theme: "dark" });

    t.clock.advance(1000);
    const cleared = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: { name: null, image: null, metadata: {} },
    });
    expect(cleared.status).toBe(200);
    stored = await t.store.users.findById(userId);
    expect(stored).toMatchObject({ name: null, image: null, metadata: {} });
    expect(stored!.updatedAt.getTime()).toBe(t.clock.now());
    expect(seen.map((e) => e.fields)).toEqual([["name", "metadata"], ["metadata"], ["name", "image", "metadata"]]);
  });

  it("never writes email, emailVerified, id or password sent in the body (privilege escalation by mass assignment)", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    const before = await t.store.accounts.listByUser(userId);
    const res = await t.request("PATCH", "/user", {
      headers: bearer(token),
      body: {
        name: "Ada",
        email: "admin@example.com",
        emailVerified: true,
        id: "admin",
        password: "pwned password",
        createdAt: "2000-01-01T00:00:00Z",
      },
    });
    expect(res.status).toBe(200);
    const stored = await t.store.users.findById(userId);
    expect(stored).toMatchObject({ id: userId, email: "ada@example.com", emailVerified: false, name: "Ada" });
    expect(stored!.createdAt.getTime()).not.toBe(Date.parse("2000-01-01T00:00:00Z"));
    expect(await t.store.users.findByEmail("admin@example.com")).toBeNull();
    expect(await t.store.accounts.listByUser(userId)).toEqual(before);
    expect((await signIn(t, { email: "ada@example.com" })).status).toBe(200);
  });

  it("rejects wrongly typed fields with 400 and changes nothing", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, { name: "Ada" });
    for (const body of [
      { metadata: [1, 2] },
      { metadata: "x" },
      { metadata: null },
      { name: 42 },
      { image: { url: "x" } },
      { name: "n".repeat(257) },
      "not json",
    ]) {
      const res = await t.request("PATCH", "/user", { headers: bearer(token), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await res.json()).code).toBe("INVALID_REQUEST");
    }
    expect(await t.store.users.findById(userId)).toMatchObject({ name: "Ada", metadata: {} });
  });

  it("refuses a cookie-authenticated PATCH from an untrusted origin (CSRF)", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com");
    const res = await t.request("PATCH", "/user", {
      headers: cookieHeaders(token, "https://evil.example"),
      body: { name: "Mallory" },
    });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("INVALID_ORIGIN");
    expect((await t.store.users.findById(userId))!.name).toBeNull();
    const ok = await t.request("PATCH", "/user", { headers: cookieHeaders(token), body: { name: "Ada" } });
    expect(ok.status).toBe(200);
  });

  it("refuses a username change with 403 USERNAME_CHANGE_DISABLED unless allowUsernameChange", async () => {
    const t = createTestAuth();
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, { username: "ada" });
    const res = await t.request("PATCH", "/user", { headers: bearer(token), body: { username: "ada2", name: "Ada" } });
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("USERNAME_CHANGE_DISABLED");
    expect(await t.store.users.findById(userId)).toMatchObject({ username: "ada", name: null });
    // Re-sending the current username (forms that post every field) is not a change.
    const same = await t.request("PATCH", "/user", { headers: bearer(token), body: { username: "ADA", name: "Ada" } });
    expect(same.status).toBe(200);
    expect(await t.store.users.findById(userId)).toMatchObject({ username: "ada", name: "Ada" });
  });

  it("changes the username when allowed: sign-in follows it, null and bad shapes are 400", async () => {
    const t = createTestAuth({ emailPassword: { allowUsernameChange: true } });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, { username: "ada" });
    const res = await t.request("PATCH", "/user", { headers: bearer(token), body: { username: "Countess_Ada" } });
    expect(res.status).toBe(200);
    expect((await res.json()).user.username).toBe("countess_ada");
    expect((await t.store.users.findByUsername("countess_ada"))!.id).toBe(userId);
    expect(await t.store.users.findByUsername("ada")).toBeNull();
    expect((await signIn(t, { username: "countess_ada" })).status).toBe(200);
    expect((await signIn(t, { username: "ada" })).status).toBe(401);
    for (const [username, code] of [
      [null, "INVALID_REQUEST"],
      ["x", "INVALID_USERNAME"],
      ["has space", "INVALID_USERNAME"],
    ] as const) {
      const bad = await t.request("PATCH", "/user", { headers: bearer(token), body: { username } });
      expect(bad.status).toBe(400);
      expect((await bad.json()).code).toBe(code);
    }
    expect((await t.store.users.findById(userId))!.username).toBe("countess_ada");
  });

  it("answers 409 USERNAME_TAKEN for another user's name; 10 parallel claims of one free name: exactly one wins", async () => {
    const t = createTestAuth({ emailPassword: { allowUsernameChange: true }, rateLimit: { enabled: false } });
    await t.signUp("grace@example.com", PASSWORD, { username: "grace" });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, { username: "ada" });
    const taken = await t.request("PATCH", "/user", { headers: bearer(token), body: { username: "GRACE" } });
    expect(taken.status).toBe(409);
    expect((await taken.json()).code).toBe("USERNAME_TAKEN");
    expect((await t.store.users.findById(userId))!.username).toBe("ada");

    const racers = await Promise.all(Array.from({ length: 10 }, (_, i) => t.signUp(`racer${i}@example.com`)));
    const results = await Promise.all(
      racers.map((r) => t.request("PATCH", "/user", { headers: bearer(r.token), body: { username: "prize" } })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    const owner = await t.store.users.findByUsername("prize");
    expect(racers.map((r) => r.userId)).toContain(owner!.id);
  });

  it("keeps the lock through a rename (the lock is the account's, not the name's) and the freed name starts clean", async () => {
    const t = createTestAuth({ emailPassword: { allowUsernameChange: true }, lockout: { maxFailures: 3 } });
    const { token, userId } = await t.signUp("ada@example.com", PASSWORD, { username: "ada" });
    for (let i = 0; i < 3; i++)
      expect((await signIn(t, { username: "ada", password: "wrong password!" }, `203.0.113.${i}`)).status).toBe(401);
    expect((await signIn(t, { username: "ada" })).status).toBe(429);
    const now = t.clock.now();
    expect(await t.counters.peek(`lock:user:${userId}`, now)).not.toBeNull();
    expect(await t.counters.peek("lock:username:ada", now)).toBeNull();

    expect((await t.request("PATCH", "/user", { headers: bearer(token), body: { username: "lovelace" } })).status).toBe(
      200,
    );
    const locked = await signIn(t, { username: "lovelace" });
    expect(locked.status).toBe(429);
    expect((await locked.json()).code).toBe("ACCOUNT_LOCKED");
    // The same account by email: one lock, not one per identifier.
    expect((await signIn(t, { email: "ada@example.com" })).status).toBe(429);
    // The freed name starts clean for whoever takes it next.
    await t.signUp("next@example.com", PASSWORD, { username: "ada" });
    expect((await signIn(t, { username: "ada" })).status).toBe(200);
  });

  it("gives a user without a username a clean lockout slate for the new one", async () => {
    const t = createTestAuth({ emailPassword: { allowUsernameChange: true }, lockout: { maxFailures: 2 } });
    const { token } = await t.signUp("ada@example.com");
    // Someone pre-locks a name nobody owns yet (unknown identifiers are counted too).
    for (let i = 0; i < 2; i++) await signIn(t, { username: "ada", password: "wrong password!" }, `203.0.113.${i}`);
    expect((await t.request("PATCH", "/user", { headers: bearer(token), body: { username: "ada" } })).status).toBe(200);
    expect((await signIn(t, { username: "ada" })).status).toBe(200);
  });
});

describe("OpenAPI", () => {
  it("documents the account and link-verification operations, with the session requirement where it applies", async () => {
    const t = createTestAuth();
    const doc = await (await t.request("GET", "/openapi.json")).json();
    const ops: Array<[string, string, boolean]> = [
      ["/user", "patch", true],
      ["/set-password", "post", true],
      ["/verify-password", "post", true],
      ["/delete-account", "post", true],
      ["/delete-account/request", "post", true],
      ["/delete-account/confirm", "post", false],
      ["/send-verification-email", "post", false],
      ["/verify-email", "post", false],
    ];
    for (const [path, method, authenticated] of ops) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.description.length).toBeGreaterThan(40);
      expect(op.security.length > 0, path).toBe(authenticated);
      expect(op.responses["400"]).toBeDefined();
    }
    expect(
      Object.keys(doc.paths["/user"].patch.requestBody.content["application/json"].schema.properties).sort(),
    ).toEqual(["appMetadata", "image", "metadata", "name", "username"]);
  });
});
