import { describe, expect, it } from "vitest";
import { AuthEvents } from "./events.ts";

const signedUp = { userId: "u1", email: "ada@example.com", at: new Date(0) };

describe("AuthEvents", () => {
  it("bug: a listener returning a non-promise value (`(e) => list.push(e)`) is fine; only thenables are awaited", async () => {
    const errors: unknown[] = [];
    const events = new AuthEvents((error) => errors.push(error));
    const list: unknown[] = [];
    let awaited = false;
    events.on("UserSignedUp", (e) => list.push(e));
    events.on("UserSignedUp", () => "a string");
    events.on("UserSignedUp", () => ({ then: (done: () => void) => setTimeout(() => ((awaited = true), done()), 1) }));
    events.onAny(() => 42);
    await events.emit("UserSignedUp", signedUp);
    expect(list).toHaveLength(1);
    expect(awaited).toBe(true);
    expect(errors).toEqual([]);
  });

  it("a rejecting thenable or a throwing listener is reported, never thrown", async () => {
    const errors: unknown[] = [];
    const events = new AuthEvents((error) => errors.push(error));
    events.on("UserSignedUp", () => Promise.reject(new Error("async")));
    events.on("UserSignedUp", () => {
      throw new Error("sync");
    });
    await events.emit("UserSignedUp", signedUp);
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(["async", "sync"]);
  });
});
