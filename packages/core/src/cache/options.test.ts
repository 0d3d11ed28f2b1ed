import { describe, expect, it } from "vitest";
import { memoryStore } from "@latchkey/memory-store";
import type { Store } from "../ports/store.ts";
import { AuthConfigError } from "../errors/errors.ts";
import { resolveCacheOptions } from "./options.ts";

describe("cache options", () => {
  const withoutCarrier = (): Store => {
    const { cacheCarrier: _none, ...rest } = memoryStore();
    return { ...rest, kind: "d1" };
  };
  const refused = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      if (error instanceof AuthConfigError) return error;
      throw error;
    }
    throw new Error("expected an AuthConfigError");
  };

  it("is off unless asked for, with ttl 30 s and 10,000 entries by default", () => {
    expect(resolveCacheOptions(undefined, memoryStore())).toBeNull();
    expect(resolveCacheOptions({}, memoryStore())).toMatchObject({ ttlMs: 30_000, maxEntries: 10_000 });
  });

  it("refuses a store without a carrier unless ttl is at most 5 s and the delay is accepted", () => {
    expect(refused(() => resolveCacheOptions({}, withoutCarrier())).message).toMatch(/"d1" store has none/);
    expect(refused(() => resolveCacheOptions({ ttl: "5s" }, withoutCarrier())).field).toBe("cache");
    expect(refused(() => resolveCacheOptions({ ttl: "6s", acceptRevocationDelay: true }, withoutCarrier())).field).toBe(
      "cache",
    );
    expect(resolveCacheOptions({ ttl: "5s", acceptRevocationDelay: true }, withoutCarrier())).toMatchObject({
      ttlMs: 5000,
      carrier: null,
    });
  });

  it("refuses bad values, naming the option", () => {
    expect(refused(() => resolveCacheOptions({ maxEntries: 0 }, memoryStore())).field).toBe("cache.maxEntries");
    expect(refused(() => resolveCacheOptions({ ttl: "soon" as never }, memoryStore())).field).toBe("cache.ttl");
    expect(refused(() => resolveCacheOptions({ carrier: {} as never }, memoryStore())).field).toBe("cache.carrier");
    expect(refused(() => resolveCacheOptions({ acceptRevocationDelay: true }, memoryStore())).field).toBe(
      "cache.acceptRevocationDelay",
    );
  });
});
