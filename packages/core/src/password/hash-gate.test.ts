import { describe, expect, it } from "vitest";
import { AuthError } from "../errors/errors.ts";
import { HashGate } from "./hash-gate.ts";

function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { done, release };
}

describe("HashGate", () => {
  it("runs `concurrency` tasks, queues `maxQueue`, refuses the rest with BUSY (Retry-After 1) without running them", async () => {
    const gate = new HashGate({ concurrency: 2, maxQueue: 2 });
    const block = held();
    let started = 0;
    let peak = 0;
    let running = 0;
    const task = async () => {
      started++;
      peak = Math.max(peak, ++running);
      await block.done;
      running--;
      return "hashed";
    };
    const results = Array.from({ length: 7 }, () => gate.run(task).catch((error: unknown) => error));
    await Promise.resolve();
    expect(started).toBe(2);
    expect(gate.stats()).toEqual({ running: 2, queued: 2, started: 2, refused: 3 });
    block.release();
    const settled = await Promise.all(results);
    expect(settled.filter((r) => r === "hashed")).toHaveLength(4);
    const refused = settled.filter((r) => r instanceof AuthError) as AuthError[];
    expect(refused.map((e) => [e.code, e.retryAfter])).toEqual([
      ["BUSY", 1],
      ["BUSY", 1],
      ["BUSY", 1],
    ]);
    expect(started).toBe(4);
    expect(peak).toBe(2);
    expect(gate.stats()).toEqual({ running: 0, queued: 0, started: 4, refused: 3 });
  });

  it("a failing task frees its slot for the next one", async () => {
    const gate = new HashGate({ concurrency: 1, maxQueue: 1 });
    const failing = gate.run(async () => {
      throw new Error("engine failure");
    });
    const next = gate.run(async () => "ok");
    await expect(failing).rejects.toThrow("engine failure");
    await expect(next).resolves.toBe("ok");
    expect(gate.stats()).toEqual({ running: 0, queued: 0, started: 2, refused: 0 });
  });
});
