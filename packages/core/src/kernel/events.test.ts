import { describe, expect, it } from "vitest";
import { AuthEvents } from "./events.ts";
import { emit } from "./emit.ts";
import type { RequestMeta } from "./request-meta.ts";

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

describe("AuthEvents required listeners", () => {
  it("a required listener's failure is reported and rethrown after every listener ran; others still only reported", async () => {
    const errors: unknown[] = [];
    const events = new AuthEvents((error) => errors.push(error));
    const ran: string[] = [];
    events.onAny(() => Promise.reject(new Error("audit append failed")), { required: true });
    events.onAny(() => void ran.push("after"));
    events.on("UserSignedUp", () => Promise.reject(new Error("optional")));
    await expect(events.emit("UserSignedUp", signedUp)).rejects.toThrow("audit append failed");
    expect(ran).toEqual(["after"]);
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(["audit append failed", "optional"]);
  });

  it("unsubscribing a required listener stops both the calls and the rethrow", async () => {
    const events = new AuthEvents(() => undefined);
    const off = events.onAny(
      () => {
        throw new Error("sync failure");
      },
      { required: true },
    );
    await expect(events.emit("UserSignedUp", signedUp)).rejects.toThrow("sync failure");
    off();
    await expect(events.emit("UserSignedUp", signedUp)).resolves.toBeUndefined();
  });
});

describe("emit(ctx, ...)", () => {
  const meta = { ip: "203.0.113.9", userAgent: "test-agent" } as RequestMeta;

  it("builds no event (reads no clock) while nothing listens; builds it with the request fields once something does", async () => {
    const events = new AuthEvents();
    let reads = 0;
    const ctx = { events, clock: { now: () => (reads++, 1_000) } };
    await emit(ctx, "UserSignedIn", { userId: "u1", method: "password" }, meta);
    expect(reads).toBe(0);
    const seen: unknown[] = [];
    const off = events.on("UserSignedIn", (e) => seen.push(e));
    expect(events.listens("UserSignedIn")).toBe(true);
    expect(events.listens("UserSignedUp")).toBe(false);
    await emit(ctx, "UserSignedIn", { userId: "u1", method: "password" }, meta);
    expect(reads).toBe(1);
    expect(seen).toEqual([
      {
        type: "UserSignedIn",
        userId: "u1",
        method: "password",
        at: new Date(1_000),
        ip: meta.ip,
        userAgent: meta.userAgent,
      },
    ]);
    off();
    events.onAny((e) => seen.push(e.type));
    expect(events.listens("UserSignedUp")).toBe(true);
    await emit(ctx, "UserSignedUp", { userId: "u1", email: "ada@example.com" }, meta);
    expect(seen.at(-1)).toBe("UserSignedUp");
  });
});
