import { memoryStore } from "@latchkey/memory-store";
import { describe, expect, it } from "vitest";
import type { AccountRecord, SessionRecord, UserRecord } from "./records.ts";
import type { StorePorts } from "./store.ts";
import { compensatingTransaction } from "./compensation.ts";

const T0 = new Date(Date.UTC(2026, 0, 1));
let n = 0;
const user = (): UserRecord => {
  const id = `u${++n}`;
  const email = `${id}@example.com`;
  return {
    id,
    email,
    emailVerified: false,
    name: null,
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: T0,
    updatedAt: T0,
    banned: false,
    banReason: null,
    banExpires: null,
  };
};
const session = (userId: string): SessionRecord => ({
  id: `s${++n}`,
  userId,
  tokenHash: `th${n}`,
  expiresAt: new Date(T0.getTime() + 60_000),
  createdAt: T0,
  updatedAt: T0,
  ip: null,
  userAgent: null,
  rememberMe: true,
  impersonatedBy: null,
});
const account = (userId: string): AccountRecord => ({
  id: `a${++n}`,
  userId,
  providerId: "credential",
  passwordHash: null,
  accountId: null,
  accessToken: null,
  refreshToken: null,
  idToken: null,
  accessTokenExpiresAt: null,
  refreshTokenExpiresAt: null,
  scope: null,
  createdAt: T0,
  updatedAt: T0,
});

// A memory store's ports underneath, with every undo written down in the order it ran.
function setUp(failing: Set<string> = new Set()) {
  const base = memoryStore();
  const ran: string[] = [];
  const step = (name: string, work: () => Promise<unknown>) => async () => {
    ran.push(name);
    if (failing.has(name)) throw new Error(`undo ${name} failed`);
    return work();
  };
  const ports: StorePorts = {
    ...base,
    sessions: {
      ...base.sessions,
      async create(record) {
        if (record.tokenHash === "refused") throw new Error("the database refused the session");
        return base.sessions.create(record);
      },
    },
  };
  const transaction = compensatingTransaction(ports, {
    session: (id) => step(`session:${id}`, () => base.sessions.delete(id))(),
    account: async (id) => {
      await step(`account:${id}`, async () => undefined)();
    },
    passkey: async (id) => {
      await step(`passkey:${id}`, async () => undefined)();
    },
    user: (id) => step(`user:${id}`, () => base.users.delete(id))(),
  });
  return { base, ran, transaction };
}

describe("compensatingTransaction", () => {
  it("a body that returns keeps its writes and runs no undo", async () => {
    const { base, ran, transaction } = setUp();
    const u = user();
    const result = await transaction(async (tx) => {
      await tx.users.create(u, []);
      await tx.sessions.create(session(u.id));
      return "done";
    });
    expect(result).toBe("done");
    expect(ran).toEqual([]);
    expect(await base.users.findById(u.id)).not.toBeNull();
  });

  it("a throw undoes the creations newest first and rethrows the body's error", async () => {
    const { base, ran, transaction } = setUp();
    const u = user();
    const s = session(u.id);
    const a = account(u.id);
    const failure = new Error("third step failed");
    await expect(
      transaction(async (tx) => {
        await tx.users.create(u, []);
        await tx.accounts.create(a);
        await tx.sessions.create(s);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(ran).toEqual([`session:${s.id}`, `account:${a.id}`, `user:${u.id}`]);
    expect(await base.users.findById(u.id)).toBeNull();
    expect(await base.sessions.findByTokenHash(s.tokenHash)).toBeNull();
  });

  it("a failing undo neither hides the body's error nor stops the older undos", async () => {
    const u = user();
    const s = session(u.id);
    const { base, ran, transaction } = setUp(new Set([`session:${s.id}`]));
    const failure = new Error("body failed");
    await expect(
      transaction(async (tx) => {
        await tx.users.create(u, []);
        await tx.sessions.create(s);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(ran).toEqual([`session:${s.id}`, `user:${u.id}`]);
    expect(await base.users.findById(u.id)).toBeNull();
  });

  it("undoes a created user's own accounts by id before the user, never the user's rows wholesale", async () => {
    const { ran, transaction } = setUp();
    const u = user();
    const a = account(u.id);
    const s = session(u.id);
    await expect(
      transaction(async (tx) => {
        await tx.users.create(u, [a]);
        await tx.sessions.create(s);
        throw new Error("late failure");
      }),
    ).rejects.toThrow("late failure");
    expect(ran).toEqual([`session:${s.id}`, `account:${a.id}`, `user:${u.id}`]);
  });

  it("records nothing for a create that threw", async () => {
    const { ran, transaction } = setUp();
    const u = user();
    await expect(
      transaction(async (tx) => {
        await tx.users.create(u, []);
        await tx.sessions.create({ ...session(u.id), tokenHash: "refused" });
      }),
    ).rejects.toThrow("the database refused the session");
    expect(ran).toEqual([`user:${u.id}`]);
  });

  it("records nothing for a create that did not happen: a unique conflict", async () => {
    const { base, ran, transaction } = setUp();
    const taken = user();
    await base.users.create(taken, []);
    const duplicate = { ...user(), email: taken.email };
    await expect(
      transaction(async (tx) => {
        expect(await tx.users.create(duplicate, [])).toEqual({ ok: false, conflict: "email" });
        await tx.sessions.create({ ...session(taken.id), userId: taken.id });
        throw new Error("after the conflict");
      }),
    ).rejects.toThrow("after the conflict");
    // Only the session was undone: the conflicting create wrote nothing, and the user it collided with stays.
    expect(ran).toHaveLength(1);
    expect(ran[0]).toMatch(/^session:/);
    expect(await base.users.findById(taken.id)).not.toBeNull();
  });

  it("keeps every method of a port that is a proxy (nothing of it to spread) and still records its creations", async () => {
    const base = memoryStore();
    // Ports as a tracing or instrumenting wrapper hands them out: proxies with no own properties.
    const proxied = <T extends object>(port: T): T =>
      new Proxy({} as T, {
        get: (_target, key) => {
          const value: unknown = Reflect.get(port, key, port);
          return typeof value === "function" ? value.bind(port) : value;
        },
      });
    const ports: StorePorts = {
      ...base,
      users: proxied(base.users),
      sessions: proxied(base.sessions),
      accounts: proxied(base.accounts),
      socialAccounts: proxied(base.socialAccounts!),
      passkeys: proxied(base.passkeys!),
    };
    const undone: string[] = [];
    const transaction = compensatingTransaction(ports, {
      session: async (id) => undone.push(`session:${id}`),
      account: async (id) => undone.push(`account:${id}`),
      passkey: async (id) => undone.push(`passkey:${id}`),
      user: async (id) => undone.push(`user:${id}`),
    });
    const u = user();
    const s = session(u.id);
    const linked = { ...account(u.id), providerId: "github", accountId: "gh-1" };
    const failure = new Error("after every write");
    await expect(
      transaction(async (tx) => {
        await tx.users.create(u, []);
        expect(await tx.users.findById(u.id)).toMatchObject({ id: u.id });
        await tx.sessions.create(s);
        expect((await tx.sessions.findByTokenHash(s.tokenHash))?.session.id).toBe(s.id);
        expect(await tx.socialAccounts!.link(linked)).toBe("linked");
        expect(await tx.passkeys!.listByUser(u.id)).toEqual([]);
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(undone).toEqual([`account:${linked.id}`, `session:${s.id}`, `user:${u.id}`]);
  });

  it("leaves the other ports as they are", async () => {
    const { base, transaction } = setUp();
    await transaction(async (tx) => {
      expect(tx.counters).toBe(base.counters);
      expect(tx.verifications).toBe(base.verifications);
    });
  });
});
