import { afterEach, describe, expect, it, vi } from "vitest";
import { AuthError } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";
import { PASSWORD, ip } from "../../../test/routes/hooks/flows.ts";

describe("hook answers", () => {
  afterEach(() => vi.restoreAllMocks());

  it("an amendment changes the user before the insert; the context carries ip and user agent", async () => {
    const contexts: unknown[] = [];
    const t = createTestAuth({
      hooks: {
        beforeUserCreated: async (user, context) => {
          contexts.push(context);
          return { name: `${user.name} (${user.email})`, username: "Ada_L", metadata: { crm: "c-1" } };
        },
      },
    });
    const res = await t.request("POST", "/sign-up/email", {
      body: { email: "ada@example.com", password: PASSWORD, name: "Ada" },
      headers: { "user-agent": "Browser/1" },
      ip: "203.0.113.77",
    });
    expect(res.status).toBe(200);
    const stored = (await t.store.users.findByEmail("ada@example.com"))!;
    expect(stored).toMatchObject({ name: "Ada (ada@example.com)", username: "ada_l", metadata: { crm: "c-1" } });
    expect(contexts).toEqual([{ path: "sign-up-email", ip: "203.0.113.77", userAgent: "Browser/1" }]);
  });

  it("a thrown AuthError is the answer; any other throw is a 500 without the hook's message, logged once", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => undefined);
    let mode: "auth" | "plain" = "auth";
    const t = createTestAuth({
      hooks: {
        beforeUserCreated: () => {
          if (mode === "auth") throw new AuthError("INVALID_EMAIL", "Only company addresses");
          throw new Error("crm secret-detail-93 unreachable");
        },
      },
    });
    const own = await t.request("POST", "/sign-up/email", { body: { email: "a@example.com", password: PASSWORD } });
    expect(own.status).toBe(400);
    expect(await own.json()).toEqual({ code: "INVALID_EMAIL", message: "Only company addresses" });
    mode = "plain";
    errors.mockClear();
    const crash = await t.request("POST", "/sign-up/email", { body: { email: "b@example.com", password: PASSWORD } });
    expect(crash.status).toBe(500);
    const body = (await crash.json()) as { code: string; message: string };
    expect(body.code).toBe("INTERNAL_ERROR");
    expect(JSON.stringify(body)).not.toContain("secret-detail-93");
    expect(errors).toHaveBeenCalledTimes(1);
    expect(String(errors.mock.calls[0]![0])).toContain("beforeUserCreated");
    expect(await t.store.users.findByEmail("b@example.com")).toBeNull();
  });

  it("a refused sign-in does not count as a failed credential (no lockout)", async () => {
    let banned = false;
    const t = createTestAuth({ hooks: { beforeSignIn: (user) => !(banned && user.email === "ada@example.com") } });
    await t.signUp("ada@example.com", PASSWORD);
    banned = true;
    for (let i = 0; i < 7; i++) {
      const res = await t.request("POST", "/sign-in/email", {
        body: { email: "ada@example.com", password: PASSWORD },
        ip: ip(),
      });
      expect(res.status).toBe(403);
    }
    banned = false;
    const ok = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: PASSWORD },
      ip: ip(),
    });
    expect(ok.status).toBe(200);
  });

  it("a wrong password is 401 before the hook runs (the hook never reveals a banned account)", async () => {
    const seen: string[] = [];
    let banned = false;
    const t = createTestAuth({
      hooks: {
        beforeSignIn: (user) => {
          seen.push(user.email);
          return !banned;
        },
      },
    });
    await t.signUp("ada@example.com", PASSWORD);
    banned = true;
    seen.length = 0;
    const res = await t.request("POST", "/sign-in/email", {
      body: { email: "ada@example.com", password: "wrong password!" },
    });
    expect(res.status).toBe(401);
    expect(seen).toEqual([]);
  });

  it("hook options are closed and must be functions", () => {
    expect(() => createTestAuth({ hooks: { beforeSignUp: () => true } as never })).toThrow(
      /hooks\.beforeSignUp is not an option; did you mean hooks\.beforeSignIn/,
    );
    expect(() => createTestAuth({ hooks: { beforeSignIn: true } as never })).toThrow(
      /hooks\.beforeSignIn must be a function/,
    );
  });
});
