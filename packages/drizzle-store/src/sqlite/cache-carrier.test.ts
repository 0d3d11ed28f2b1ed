import { spawn, type ChildProcess } from "node:child_process";
import { appendFileSync, readFileSync, symlinkSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { AuthConfigError, type CacheCarrier, type FullStore } from "@latchkey/core";
import { createTestSqliteFile, type TestDatabase } from "@latchkey/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { drizzleStore } from "../sqlite.ts";
import { migrateDatabase } from "../drizzle-store.ts";
import { otherOpeners, processRegistryOf } from "./cache-carrier.ts";

// Issue 48 item 18: the libSQL file carrier is an in-process bus. It now serves every spelling of the file's path,
// and refuses (createAuth's AuthConfigError) when another live process opened the same file.

const opened: Array<{ store?: FullStore; database?: TestDatabase; child?: ChildProcess }> = [];
afterEach(async () => {
  for (const { store, database, child } of opened.splice(0)) {
    await store?.close();
    child?.kill();
    await database?.dispose();
  }
});

const pathOf = (url: string) => url.replace(/^file:/, "").replace(/[?#].*$/, "");

function received(carrier: CacheCarrier): string[] {
  const heard: string[] = [];
  carrier.start({ message: (p) => void heard.push(p), up: () => undefined, down: () => undefined });
  return heard;
}

describe("libSQL file cache carrier", () => {
  it("one bus for every spelling of the same file (relative, absolute, a symbolic link)", async () => {
    const database = await createTestSqliteFile();
    opened.push({ database });
    await migrateDatabase(database.url);
    const absolute = pathOf(database.url);
    const link = join(dirname(absolute), `link-${basename(absolute)}`);
    symlinkSync(absolute, link);
    const relative = `file:${absolute.startsWith(process.cwd()) ? absolute.slice(process.cwd().length + 1) : absolute}`;
    const stores = [`file:${absolute}`, relative, `file:${link}`].map((url) => drizzleStore({ url }));
    for (const store of stores) opened.push({ store });
    const [a, b, c] = stores.map((store) => store.cacheCarrier?.() as CacheCarrier);
    const heardB = received(b as CacheCarrier);
    const heardC = received(c as CacheCarrier);
    received(a as CacheCarrier);
    await a?.publish("u:one");
    expect([heardB, heardC]).toEqual([["u:one"], ["u:one"]]);
  });

  it("refuses the cache while another live process has the file open; accepts it again once that process ended", async () => {
    const database = await createTestSqliteFile();
    opened.push({ database });
    await migrateDatabase(database.url);
    const store = drizzleStore({ url: database.url });
    opened.push({ store });
    const file = pathOf(database.url);
    // This process registered itself when it opened the store, and is never "another" process.
    expect(readFileSync(processRegistryOf(file), "utf8").split("\n")).toContain(String(process.pid));
    expect(otherOpeners(file)).toEqual([]);
    expect(store.cacheCarrier?.()).toBeDefined();
    // Another process that opened the file (a second server, a worker): it records its pid the same way.
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    opened.push({ child });
    appendFileSync(processRegistryOf(file), `${child.pid}\n`);
    expect(otherOpeners(file)).toEqual([child.pid]);
    expect(() => store.cacheCarrier?.()).toThrow(AuthConfigError);
    expect(() => store.cacheCarrier?.()).toThrow(/open in other processes too/);
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill();
    await exited;
    expect(otherOpeners(file)).toEqual([]);
    expect(store.cacheCarrier?.()).toBeDefined();
  });
});
