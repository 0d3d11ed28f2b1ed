import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createTestAuth, type TestAuth } from "../../../test/test-auth.ts";
import type { TestOidcProvider } from "@latchkey/test-support/oidc-provider";
import { oidcProviderForFile, userCount } from "../../../test/routes/oauth/social-test-kit.ts";
import { hookFlows, PASSWORD, type Calls, recordingHooks } from "../../../test/routes/hooks/flows.ts";

let idp: TestOidcProvider;
oidcProviderForFile((started) => (idp = started));
const { USER_CREATION, SIGN_IN } = hookFlows(() => idp);

describe("hooks on every user-creating path", () => {
  it.each(Object.entries(USER_CREATION))("%s: runs beforeUserCreated before the insert", async (path, flow) => {
    const calls: Calls = [];
    let t: TestAuth | null = null;
    const { hooks } = recordingHooks(() => t!.store, calls);
    t = createTestAuth({ ...flow.options, hooks });
    const call = await flow.setup(t, "new@example.com");
    const res = await call();
    expect(res.status).toBe(200);
    expect(calls.filter((c) => c.hook === "beforeUserCreated")).toEqual([
      { hook: "beforeUserCreated", path, email: "new@example.com" },
    ]);
    expect(await userCount(t, "new@example.com")).toBe(1);
  });

  it.each(Object.entries(USER_CREATION))(
    "%s: false refuses with 403 SIGN_UP_REJECTED and writes nothing",
    async (_, flow) => {
      const calls: Calls = [];
      let t: TestAuth | null = null;
      const { hooks } = recordingHooks(() => t!.store, calls, { signUp: false });
      t = createTestAuth({ ...flow.options, hooks });
      const call = await flow.setup(t, "new@example.com");
      const res = await call();
      expect(res.status).toBe(403);
      const code = "json" in res ? ((await res.json()) as { code: string }).code : res.code;
      expect(code).toBe("SIGN_UP_REJECTED");
      expect(await userCount(t, "new@example.com")).toBe(0);
      expect(calls.some((c) => c.hook === "beforeSignIn")).toBe(false);
    },
  );
});

describe("hooks on every session-creating path", () => {
  it.each(Object.entries(SIGN_IN))("%s: runs beforeSignIn before the session exists", async (path, flow) => {
    const calls: Calls = [];
    let t: TestAuth | null = null;
    const { hooks, sessionsBefore } = recordingHooks(() => t!.store, calls);
    t = createTestAuth({ ...flow.options, hooks });
    if (flow.existing) await t.signUp("ada@example.com", PASSWORD);
    calls.length = 0;
    const call = await flow.setup(t, "ada@example.com");
    const res = (await call()) as Response;
    expect(res.status).toBe(200);
    expect(calls.filter((c) => c.hook === "beforeSignIn")).toEqual([
      { hook: "beforeSignIn", path, email: "ada@example.com" },
    ]);
    const user = (await t.store.users.findByEmail("ada@example.com"))!;
    // The new session exists now and did not when the hook ran: the hook came first.
    const { session } = (await res.json()) as { session: { id: string } };
    expect((await t.store.sessions.listByUser(user.id)).map((s) => s.id)).toContain(session.id);
    expect(sessionsBefore.get(user.id) ?? []).not.toContain(session.id);
  });

  it.each(Object.entries(SIGN_IN))(
    "%s: false refuses with 403 SIGN_IN_REJECTED and creates no session",
    async (_, flow) => {
      let refuse = false;
      const t = createTestAuth({
        ...flow.options,
        hooks: { beforeSignIn: () => !refuse },
      });
      const existing = flow.existing ? await t.signUp("ada@example.com", PASSWORD) : null;
      refuse = true;
      const before = existing ? (await t.store.sessions.listByUser(existing.userId)).length : 0;
      const call = await flow.setup(t, "ada@example.com");
      const res = (await call()) as Response;
      expect(res.status).toBe(403);
      expect(((await res.json()) as { code: string }).code).toBe("SIGN_IN_REJECTED");
      expect(res.headers.get("set-cookie")).toBeNull();
      const user = await t.store.users.findByEmail("ada@example.com");
      if (existing) expect((await t.store.sessions.listByUser(existing.userId)).length).toBe(before);
      // A sign-up refused at sign-in writes no user either.
      else expect(user).toBeNull();
    },
  );
});

// The source scan that keeps the tables above complete: every place core inserts a user or creates a session
// must be a path of the tables, in a file that calls the hook. A new path without the hook fails here.
describe("the tables list every path", () => {
  const root = new URL("../../../../core/src/", import.meta.url).pathname;
  const files = (dir: string, prefix = ""): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) return files(full, `${prefix}${name}/`);
      return name.endsWith(".ts") && !name.endsWith(".test.ts") ? [`${prefix}${name}`] : [];
    });
  // The store plumbing itself (the session service, the sign-in gate and the D1-style compensation) is not a path.
  const plumbing = new Set(["session/session.ts", "session/sign-in-gate.ts", "ports/compensation.ts"]);
  const sites = (pattern: RegExp) =>
    Object.fromEntries(
      files(root)
        .filter((f) => !plumbing.has(f))
        .map((f) => [f, [...readFileSync(join(root, f), "utf8").matchAll(pattern)].length] as const)
        .filter(([, n]) => n > 0),
    );

  it("user inserts: one per path of USER_CREATION, each in a file that runs beforeUserCreated", () => {
    const found = sites(/\.users\.create\(/g);
    // insertUser (sign-up-email and create-user), the OTP sign-in's and the magic link's createUser, the social
    // sign-up, the passkey sign-up.
    expect(found).toEqual({
      "email-password/sign-up.ts": 1,
      "email-otp/email-otp.ts": 1,
      "magic-link/magic-link.ts": 1,
      "oauth/oauth.ts": 1,
      "passkey/sign-up.ts": 1,
    });
    expect(Object.keys(USER_CREATION).sort()).toEqual([
      "create-user",
      "sign-in-email-otp",
      "sign-in-magic-link",
      "sign-in-social",
      "sign-up-email",
      "sign-up-passkey",
    ]);
    for (const file of Object.keys(found))
      expect(readFileSync(join(root, file), "utf8"), file).toMatch(/hooks\.beforeUserCreated\(/);
  });

  it("session creations: one per path of SIGN_IN, each in a file that runs beforeSignIn", () => {
    // A session is created directly (`sessions.create`) or at the end of a first factor (`signInOrChallenge`, which
    // creates it unless a second step is due). The second step (two-factor/sign-in-step.ts) finishes a sign-in
    // whose first step ran the hook: it is one creation without its own. The other is an admin's impersonation
    // (admin/impersonation.ts): no sign-in of the user, so not the app's sign-in hook; the store still refuses a
    // banned user.
    const found = sites(/\.sessions\.create\(|signInOrChallenge\(\w+, /g);
    expect(found).toEqual({
      "admin/impersonation.ts": 1,
      "email-password/email-password.ts": 1,
      "email-password/sign-up.ts": 1,
      "email-otp/email-otp.ts": 1,
      "email-verification/email-verification.ts": 1,
      "magic-link/magic-link.ts": 1,
      "two-factor/sign-in-step.ts": 1,
      "oauth/oauth.ts": 3,
      "passkey/sign-in.ts": 1,
      "passkey/sign-up.ts": 1,
    });
    expect(readFileSync(join(root, "two-factor/sign-in-step.ts"), "utf8")).toMatch(/PENDING_SIGN_IN_PREFIX/);
    // Only four make a session without asking the sign-in gate: the two sign-ups (a new user has no second factor),
    // the second step itself and an admin's impersonation. Every sign-in, social included, goes through the gate.
    expect(sites(/\.sessions\.create\(/g)).toEqual({
      "admin/impersonation.ts": 1,
      "email-password/sign-up.ts": 1,
      "passkey/sign-up.ts": 1,
      "two-factor/sign-in-step.ts": 1,
    });
    delete found["two-factor/sign-in-step.ts"];
    delete found["admin/impersonation.ts"];
    expect(Object.keys(SIGN_IN).sort()).toEqual([
      "sign-in-email",
      "sign-in-email-otp",
      "sign-in-magic-link",
      "sign-in-passkey",
      "sign-in-social",
      "sign-up-email",
      "sign-up-passkey",
      "verify-email",
    ]);
    for (const file of Object.keys(found)) {
      const text = readFileSync(join(root, file), "utf8");
      expect([...text.matchAll(/hooks\.beforeSignIn\(/g)].length, file).toBe(found[file]);
    }
  });
});
