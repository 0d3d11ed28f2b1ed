import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import { AuthEvents } from "../kernel/events.ts";
import { emit } from "../kernel/emit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import { inTransaction } from "./transaction.ts";
import type { AuthContext } from "./context.ts";

describe("events emitted inside inTransaction", () => {
  const meta = { ip: null, userAgent: null } as unknown as RequestMeta;

  it("reach the listeners after the commit, and not at all when the body fails", async () => {
    const events = new AuthEvents();
    const seen: string[] = [];
    events.on("UserSignedIn", (e) => seen.push(`${e.type}:${e.userId}`));
    const ctx = { store: memoryStore(), events, clock: { now: () => 0 } } as unknown as AuthContext;
    await inTransaction(ctx, async (tx) => {
      await emit(tx, "UserSignedIn", { userId: "u1", method: "password" }, meta);
      // Nobody listens to this one: it is neither built nor held.
      await emit(tx, "UserSignedUp", { userId: "u1", email: "ada@example.com" }, meta);
      expect(seen).toEqual([]);
    });
    expect(seen).toEqual(["UserSignedIn:u1"]);
    await expect(
      inTransaction(ctx, async (tx) => {
        await emit(tx, "UserSignedIn", { userId: "u2", method: "password" }, meta);
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(seen).toEqual(["UserSignedIn:u1"]);
  });
});
