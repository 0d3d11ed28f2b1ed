import { signedIn } from "../session/sign-in-gate.ts";
import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { createAuthCore } from "../auth/auth-core.ts";
import { createTestClock, webCryptoRandom } from "../ports/clock.ts";
import { argon2idHasher } from "../password/argon2.ts";
import { hashSecret } from "../crypto/crypto.ts";

function setup() {
  const store = memoryStore();
  const core = createAuthCore({
    secret: "test-secret-0123456789abcdefghijklmnopqrstuvwxyz",
    database: store,
    baseUrl: "https://app.example",
    clock: createTestClock(),
    passwordHasher: argon2idHasher({
      random: webCryptoRandom,
      params: { memoryCost: 256, timeCost: 1, parallelism: 1 },
    }),
  });
  return { core, store };
}

describe("auth.api.updateUser", () => {
  it("trusted code may change the username even when allowUsernameChange is off; unknown ids are NOT_FOUND", async () => {
    const { core, store } = setup();
    const user = await core.api.createUser({
      email: "ada@example.com",
      password: "correct horse battery",
      username: "ada",
    });
    const updated = await core.api.updateUser(user.id, { username: "Lovelace", name: "Ada", metadata: { tier: 1 } });
    expect(updated).toMatchObject({
      username: "lovelace",
      name: "Ada",
      metadata: { tier: 1 },
      email: "ada@example.com",
    });
    expect((await store.users.findByUsername("lovelace"))!.id).toBe(user.id);
    await expect(core.api.updateUser("nobody", { name: "x" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses a non-object metadata from untyped callers and a null username", async () => {
    const { core } = setup();
    const user = await core.api.createUser({ email: "ada@example.com", password: "correct horse battery" });
    await expect(core.api.updateUser(user.id, { metadata: [1] as never })).rejects.toMatchObject({
      code: "INVALID_REQUEST",
    });
    await expect(core.api.updateUser(user.id, { username: null as never })).rejects.toMatchObject({
      code: "INVALID_USERNAME",
    });
  });
});

describe("auth.api.deleteUser", () => {
  it("removes the user and its sessions once; a second call answers false", async () => {
    const { core, store } = setup();
    const user = await core.api.createUser({ email: "ada@example.com", password: "correct horse battery" });
    const session = signedIn(await core.api.signIn({ email: "ada@example.com", password: "correct horse battery" }));
    expect(await core.api.deleteUser(user.id)).toBe(true);
    expect(await store.users.findById(user.id)).toBeNull();
    expect(await store.sessions.findByTokenHash(hashSecret(session.credentials.token))).toBeNull();
    expect(await core.api.deleteUser(user.id)).toBe(false);
  });
});
