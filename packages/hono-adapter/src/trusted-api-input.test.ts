import { describe, expect, it } from "vitest";
import { apiKeys, auditLog, emailOtp, magicLink } from "@latchkey/core";
import { createTestAuth } from "../test/test-auth.ts";

// Issue 33 item 9: ids and identifiers are checked at the auth.api boundary. An object such as `{ $ne: null }`
// is refused with 400 INVALID_REQUEST and changes nothing, on every store (MongoDB's ports add `$eq` as well).

const HOSTILE = { $ne: null } as unknown as string;

describe("auth.api input", () => {
  it("refuses non-string ids and identifiers with INVALID_REQUEST and changes nothing", async () => {
    const t = createTestAuth({ plugins: [emailOtp(), magicLink(), apiKeys(), auditLog()] });
    const a = await t.signUp("ada@example.com");
    const b = await t.signUp("bob@example.com");
    const refused = async (call: () => Promise<unknown>, field: string) =>
      expect(call()).rejects.toMatchObject({ code: "INVALID_REQUEST", details: [{ path: field }] });

    await refused(() => t.auth.api.revokeSessions({ userId: HOSTILE }), "userId");
    await refused(() => t.auth.api.listSessions({ userId: HOSTILE }), "userId");
    await refused(() => t.auth.api.revokeSession({ token: a.token, sessionId: HOSTILE }), "sessionId");
    await refused(() => t.auth.api.deleteUser(HOSTILE), "userId");
    await refused(() => t.auth.api.updateUser(HOSTILE, { name: "x" }), "userId");
    await refused(() => t.auth.api.getSession(HOSTILE), "token");
    await refused(() => t.auth.api.signOut(HOSTILE), "token");
    await refused(() => t.auth.api.listAuditEvents({ userId: HOSTILE }), "userId");
    await refused(() => t.auth.api.listApiKeys({ userId: HOSTILE }), "userId");
    await refused(() => t.auth.api.deleteApiKey({ keyId: HOSTILE }), "keyId");
    await refused(() => t.auth.api.signIn({ email: HOSTILE, password: "correct horse battery" }), "email");
    await refused(() => t.auth.api.requestPasswordReset({ email: HOSTILE }), "email");
    await refused(() => t.auth.api.resetPassword({ token: HOSTILE, newPassword: "a new password" }), "token");
    await refused(() => t.auth.api.sendVerificationOtp({ email: HOSTILE, purpose: "sign-in" }), "email");
    await refused(() => t.auth.api.signInMagicLink({ email: HOSTILE }), "email");
    await refused(() => t.auth.api.signInMagicLink({ email: "new@example.com", callbackURL: HOSTILE }), "callbackURL");
    await refused(() => t.auth.api.signInMagicLink({ email: "new@example.com", name: HOSTILE }), "name");
    await refused(() => t.auth.api.verifyMagicLink({ token: HOSTILE }), "token");
    await refused(() => t.auth.api.revokeSessions({ userId: "x".repeat(256) }), "userId");
    await refused(() => t.auth.api.deleteUser("has space"), "userId");

    // Nothing changed: both users and both sessions are still there.
    for (const u of [a, b]) {
      expect(await t.store.users.findById(u.userId)).not.toBeNull();
      expect(await t.auth.api.getSession(u.token)).not.toBeNull();
    }
    // Well-formed calls still work, and an unknown id is simply unknown.
    expect(await t.auth.api.revokeSessions({ userId: b.userId })).toEqual({ revoked: 1 });
    expect(await t.auth.api.deleteUser("no-such-user")).toBe(false);
    expect(await t.store.users.findById(a.userId)).not.toBeNull();
  });
});
