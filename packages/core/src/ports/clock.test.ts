import { afterEach, describe, expect, it, vi } from "vitest";
import { webCryptoRandom } from "./clock.ts";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Makes Web Crypto write a counting sequence (0, 1, 2, ... mod 256 over a 32-bit counter) and counts its calls. */
function countingSource(): { calls: () => number; drawn: number[] } {
  const drawn: number[] = [];
  let next = 0;
  const fill = (array: ArrayBufferView) => {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    for (let i = 0; i < bytes.length; i++) {
      bytes[i] = next % 251;
      drawn.push(bytes[i]!);
      next++;
    }
    return array;
  };
  const spy = vi.spyOn(crypto, "getRandomValues").mockImplementation(fill as typeof crypto.getRandomValues);
  return { calls: () => spy.mock.calls.length, drawn };
}

/** The module anew: its pool starts empty. */
async function freshModule() {
  vi.resetModules();
  return (await import("./clock.ts")).webCryptoRandom;
}

describe("webCryptoRandom", () => {
  it("serves small requests from one Web Crypto call of 4 KiB, each byte handed out once, in order", async () => {
    const random = await freshModule();
    const source = countingSource();
    const out: number[] = [];
    for (let i = 0; i < 256; i++) out.push(...random.bytes(16));
    expect(source.calls()).toBe(1);
    expect(out).toEqual(source.drawn);
    // The 257th id starts a newly drawn pool: the next bytes of the source, none of the first pool's again.
    expect([...random.bytes(16)]).toEqual(source.drawn.slice(4096, 4112));
    expect(source.calls()).toBe(2);
  });

  it("hands out copies the caller owns, never views of the pool, and never the same bytes twice", () => {
    const a = webCryptoRandom.bytes(32);
    const b = webCryptoRandom.bytes(32);
    expect(a.byteLength).toBe(32);
    expect(a.buffer.byteLength).toBe(32);
    expect(b.buffer.byteLength).toBe(32);
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = Buffer.from(webCryptoRandom.bytes(16)).toString("hex");
      expect(seen.has(id)).toBe(false);
      seen.add(id);
    }
  });

  it("draws a large request on its own, past the 65536-byte cap of one getRandomValues call", () => {
    const source = countingSource();
    const big = webCryptoRandom.bytes(70_000);
    expect(big.byteLength).toBe(70_000);
    expect([...big.subarray(0, 3)]).toEqual([0, 1, 2]);
    expect(source.calls()).toBe(2);
  });
});
