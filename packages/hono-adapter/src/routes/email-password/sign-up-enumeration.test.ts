import { describe, expect, it } from "vitest";
import { argon2idHasher, webCryptoRandom, type PasswordHasher } from "@latchkey/core";
import { createTestAuth } from "../../../test/test-auth.ts";

const PASSWORD = "correct horse battery";
const flush = () => new Promise((r) => setTimeout(r, 0));

/** The test's cheap argon2id, counting the hashes it computes. */
function countingHasher(): PasswordHasher & { hashes: number } {
  const inner = argon2idHasher({ random: webCryptoRandom, params: { memoryCost: 256, timeCost: 1, parallelism: 1 } });
  const counting = {
    hashes: 0,
    async hash(password: string) {
      counting.hashes++;
      return inner.hash(password);
    },
    verify: (hash: string, password: string) => inner.verify(hash, password),
  };
  return counting;
}

/** Status, headers that could tell the two apart, and the body. */
async function shape(res: Response) {
  return {
    status: res.status,
    cookie: res.headers.get("set-cookie"),
    contentType: res.headers.get("content-type"),
    body: await res.json(),
  };
}

describe("POST /sign-up/email with requireVerifiedForSignIn: no enumeration", () => {
  it("an existing email answers exactly like a new one; no session; a hash either way; the owner gets a notice", async () => {
    const hasher = countingHasher();
    const t = createTestAuth({ emailVerification: { requireVerifiedForSignIn: true }, passwordHasher: hasher });
    const signUp = (email: string, password = PASSWORD) =>
      t.request("POST", "/sign-up/email", { body: { email, password, name: "Someone" }, ip: "203.0.113.9" });

    const fresh = await shape(await signUp("new@example.com"));
    const owner = (await t.store.users.findByEmail("new@example.com"))!;
    expect(hasher.hashes).toBe(1);
    await flush();
    const before = t.emails.sent.length;

    const existing = await shape(await signUp("New@Example.com", "another password entirely"));
    expect(existing).toEqual(fresh);
    expect(fresh).toEqual({
      status: 200,
      cookie: null,
      contentType: expect.stringContaining("application/json"),
      body: { success: true },
    });
    // A password was hashed for the existing email too (comparable time), and nothing changed for the owner.
    expect(hasher.hashes).toBe(2);
    expect(await t.store.users.findByEmail("new@example.com")).toEqual(owner);
    expect(await t.store.sessions.listByUser(owner.id)).toEqual([]);
    const accounts = await t.store.accounts.listByUser(owner.id);
    expect(accounts).toHaveLength(1);
    expect(await hasher.verify(accounts[0]!.passwordHash!, PASSWORD)).toBe(true);

    await flush();
    await t.settle();
    const notices = t.emails.sent.slice(before);
    expect(notices).toEqual([expect.objectContaining({ to: "new@example.com", template: "existing-account" })]);
    expect(notices[0]!.subject).toBe("Someone tried to sign up with your email");
    expect(notices[0]!.text).toContain("new@example.com");
    expect(notices[0]!.text).not.toContain("another password entirely");
    expect(notices[0]!.html).toContain("<a href=");

    // Repeated attempts within the hour send no second notice (a mailbox cannot be flooded)...
    expect(await shape(await signUp("new@example.com"))).toEqual(fresh);
    await flush();
    await t.settle();
    expect(t.emails.sent.slice(before)).toHaveLength(1);
    // ...but a later one does.
    t.clock.advance(3_600_000);
    await signUp("new@example.com");
    await flush();
    await t.settle();
    expect(t.emails.sent.slice(before).filter((m) => m.template === "existing-account")).toHaveLength(2);
  });

  it("the notice has its own templates, overridable by name", async () => {
    const t = createTestAuth({
      emailVerification: { requireVerifiedForSignIn: true },
      email: {
        templates: {
          "existing-account.subject": "{{appName}}: account exists",
          "existing-account.txt": "Hello {{email}}, sign in at {{signInUrl}}",
          "existing-account.html": "<p>Hello {{email}}</p>",
        },
      },
    });
    await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } });
    await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } });
    await flush();
    await t.settle();
    const notice = t.emails.sent.find((m) => m.template === "existing-account")!;
    expect(notice).toMatchObject({
      subject: "Latchkey: account exists",
      text: "Hello ada@example.com, sign in at https://app.example",
      html: "<p>Hello ada@example.com</p>",
    });
  });

  it("without requireVerifiedForSignIn the existing email is refused honestly (a session would be issued at once)", async () => {
    const t = createTestAuth();
    await t.signUp("ada@example.com", PASSWORD);
    const res = await t.request("POST", "/sign-up/email", { body: { email: "ada@example.com", password: PASSWORD } });
    expect(res.status).toBe(422);
    expect((await res.json()).code).toBe("USER_ALREADY_EXISTS");
    await flush();
    await t.settle();
    expect(t.emails.sent.filter((m) => m.template === "existing-account")).toEqual([]);
  });

  it("an email and a username both taken answer as the taken email on every store (not the index the database tripped first)", async () => {
    const quiet = createTestAuth({ emailVerification: { requireVerifiedForSignIn: true } });
    const honest = createTestAuth();
    for (const t of [quiet, honest]) {
      await t.request("POST", "/sign-up/email", {
        body: { email: "ada@example.com", password: PASSWORD, username: "ada" },
      });
      expect(await t.store.users.findByEmail("ada@example.com")).not.toBeNull();
    }
    const again = { body: { email: "ada@example.com", password: "another password entirely", username: "ada" } };
    const quietRes = await quiet.request("POST", "/sign-up/email", again);
    expect([quietRes.status, await quietRes.json()]).toEqual([200, { success: true }]);
    await quiet.settle();
    expect(quiet.emails.sent.filter((m) => m.template === "existing-account")).toHaveLength(1);
    const honestRes = await honest.request("POST", "/sign-up/email", again);
    expect([honestRes.status, ((await honestRes.json()) as { code: string }).code]).toEqual([
      422,
      "USER_ALREADY_EXISTS",
    ]);
    // A taken username with a new email is still named.
    const other = await honest.request("POST", "/sign-up/email", {
      body: { email: "grace@example.com", password: PASSWORD, username: "ada" },
    });
    expect([other.status, ((await other.json()) as { code: string }).code]).toEqual([409, "USERNAME_TAKEN"]);
  });
});
