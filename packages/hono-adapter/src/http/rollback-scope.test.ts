import { describe, expect, it } from "vitest";
import type { FullStore } from "@latchkey/core";
import { memoryStore } from "@latchkey/memory-store";
import { bearer, createTestAuth } from "../../test/test-auth.ts";
import { testStoreKind } from "../../test/test-stores.ts";

// Review fix 21: the memory store rolled a failed transaction back by restoring whole-table snapshots taken when it
// began, which also undid what other requests wrote meanwhile. This suite pins the memory store on purpose (SQL
// rollbacks are the database's); it runs once, in the memory project.

/** A memory store whose in-transaction `sessions.create`, once armed, waits for `release` and then fails. */
function gatedStore() {
  const inner = memoryStore();
  let reached!: () => void;
  let release!: () => void;
  const atGate = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { armed: false };
  const store: FullStore = {
    ...inner,
    transaction: (body) =>
      inner.transaction((tx) =>
        body({
          ...tx,
          sessions: {
            ...tx.sessions,
            async create(session) {
              if (!state.armed) return tx.sessions.create(session);
              state.armed = false;
              reached();
              await gate;
              throw new Error("injected failure after other requests wrote");
            },
          },
        }),
      ),
  };
  return { store, state, atGate, release };
}

const onMemory = describe.skipIf(testStoreKind() !== "memory");

onMemory("memory store: a rollback undoes only its own transaction's writes", () => {
  it("a session signed out and a reset link issued while another request's transaction fails are neither brought back nor undone", async () => {
    const gated = gatedStore();
    const t = createTestAuth({ store: gated.store });
    const bob = await t.signUp("bob@example.com", "bob password 1");
    const dave = await t.signUp("dave@example.com", "dave password 1");

    // Carol's sign-up opens a transaction that will fail at its session insert.
    gated.state.armed = true;
    const carol = t.request("POST", "/sign-up/email", { body: { email: "carol@example.com", password: "carol pw 1" } });
    await gated.atGate;

    // Meanwhile, outside that transaction: dave signs out, and bob asks for a reset link (a verification row).
    expect((await t.request("POST", "/sign-out", { headers: bearer(dave.token) })).status).toBe(200);
    const asked = await t.request("POST", "/request-password-reset", { body: { email: "bob@example.com" } });
    expect(asked.status).toBe(200);
    await t.settle();
    const link = new URL(/https?:\/\/\S+/.exec(t.emails.last("bob@example.com")!.text)![0]);
    const resetToken = link.searchParams.get("token")!;

    gated.release();
    expect((await carol).status).toBe(500);
    expect(await t.store.users.findByEmail("carol@example.com")).toBeNull();

    // Dave's signed-out session stays dead, and bob's link, issued during the failed transaction, still works.
    const daveSession = await t.request("GET", "/get-session", { headers: bearer(dave.token) });
    expect(await daveSession.json()).toBeNull();
    const reset = await t.request("POST", "/reset-password", {
      body: { token: resetToken, newPassword: "bob password 2" },
    });
    expect(reset.status).toBe(200);
    const signIn = await t.request("POST", "/sign-in/email", {
      body: { email: "bob@example.com", password: "bob password 2" },
    });
    expect(signIn.status).toBe(200);
    expect(await t.store.users.findById(bob.userId)).not.toBeNull();
  });
});
