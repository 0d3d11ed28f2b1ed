import { describe, expect, it } from "vitest";
import type { FullStore } from "@latchkey/core";
import { bearer, createTestAuth } from "../../../test/test-auth.ts";
import { testStoreKind } from "../../../test/test-stores.ts";
import { PASSWORD, NEW_PASSWORD, gatedHasher, signIn, resetToken, reset, sessionsLeft } from "./reset-races-fixture.ts";

describe("a sign-in overlapping a password reset (review fix 30.13)", () => {
  it("a sign-in with the old password whose check overlapped the reset does not survive it", async () => {
    const hasher = gatedHasher();
    const t = createTestAuth({ passwordHasher: hasher });
    const { userId } = await t.signUp("ada@example.com");
    const token = await resetToken(t);
    const checked = hasher.arm();
    const attacker = signIn(t, PASSWORD);
    await checked; // the old password was checked and found right
    expect((await reset(t, token)).status).toBe(200);
    hasher.release();
    const answer = await attacker;
    expect(answer.status).toBe(401);
    expect((await answer.json()).code).toBe("INVALID_CREDENTIALS");
    expect(await sessionsLeft(t, userId)).toBe(0);
    expect((await signIn(t, NEW_PASSWORD)).status).toBe(200);
  });
});

describe("a sign-in that commits inside a reset's transaction (review fix 30.13)", () => {
  it("a session written (old password re-read as unchanged) while the reset's transaction was open does not survive the commit", async () => {
    const hasher = gatedHasher();
    const base = createTestAuth();
    let beforeCommit: (() => Promise<void>) | null = null;
    const store: FullStore = {
      ...base.store,
      transaction: (body) =>
        base.store.transaction(async (tx) => {
          const result = await body(tx);
          const hook = beforeCommit;
          beforeCommit = null;
          if (hook) await hook();
          return result;
        }),
    };
    const t = createTestAuth({ passwordHasher: hasher, store });
    const { userId } = await t.signUp("ada@example.com");
    // Verified: the reset then writes no users row (a first proof of the mailbox would, and on PostgreSQL the
    // sign-in's session insert, which reads that row FOR SHARE against a ban, would wait for the reset's commit).
    await t.store.users.update(userId, { emailVerified: true, updatedAt: new Date(t.clock.now()) });
    const token = await resetToken(t);
    const checked = hasher.arm();
    const racing = signIn(t, PASSWORD);
    await checked;
    let early: Response | null = null;
    beforeCommit = async () => {
      hasher.release();
      // PostgreSQL (read committed) and memory let the sign-in finish while the reset's writes are uncommitted: on
      // PostgreSQL it reads the old password back and keeps its session. SQLite serializes writers: there the
      // sign-in's insert waits for the commit, so it is not awaited here.
      if (testStoreKind() !== "sqlite") early = await racing;
    };
    expect((await reset(t, token)).status).toBe(200);
    const answer: Response = early ?? (await racing);
    if (answer.status === 200) {
      const survivor = (await answer.json()).credentials.token as string;
      expect(await (await t.request("GET", "/get-session", { headers: bearer(survivor) })).json()).toBeNull();
    } else {
      expect(answer.status).toBe(401);
    }
    expect(await sessionsLeft(t, userId)).toBe(0);
  });
});
