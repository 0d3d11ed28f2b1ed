import { beforeAll, describe, expect, it } from "vitest";
import type { Store } from "@latchkey/core";
import { at, session, T0, uid, user } from "./fixtures.ts";

/** Conformance of the `sessions` port; registered by `runStoreConformance`. */
export function describeSessions(getStore: () => Store): void {
  describe("sessions", () => {
    let store: Store;
    beforeAll(() => {
      store = getStore();
    });

    it("stores, finds by token hash with the user, touches and deletes", async () => {
      const u = user();
      await store.users.create(u, []);
      const s = session(u.id);
      expect(await store.sessions.create(s)).toBe(true);
      expect(await store.sessions.findByTokenHash(s.tokenHash)).toEqual({ session: s, user: u });
      await store.sessions.touch(s.id, at(999_000), at(5000));
      expect((await store.sessions.findByTokenHash(s.tokenHash))!.session).toEqual({
        ...s,
        expiresAt: at(999_000),
        updatedAt: at(5000),
      });
      expect(await store.sessions.delete(s.id)).toBe(true);
      expect(await store.sessions.delete(s.id)).toBe(false);
      expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
    });

    it("refuses a session for a user whose ban is in force, and admits one once it has ended", async () => {
      const u = user();
      await store.users.create(u, []);
      await store.users.update(u.id, { banned: true, banReason: null, banExpires: at(60_000) });
      const during = session(u.id, { createdAt: at(59_999) });
      expect(await store.sessions.create(during)).toBe(false);
      expect(await store.sessions.findByTokenHash(during.tokenHash)).toBeNull();
      const after = session(u.id, { createdAt: at(60_000) });
      expect(await store.sessions.create(after)).toBe(true);
      await store.users.update(u.id, { banned: true, banExpires: null });
      const forever = session(u.id, { createdAt: at(10 ** 12) });
      expect(await store.sessions.create(forever)).toBe(false);
      expect((await store.sessions.listByUser(u.id)).map((s) => s.id)).toEqual([after.id]);
    });

    it("keeps who impersonated (impersonatedBy)", async () => {
      const u = user();
      await store.users.create(u, []);
      const s = session(u.id, { impersonatedBy: "admin-1" });
      expect(await store.sessions.create(s)).toBe(true);
      expect((await store.sessions.findByTokenHash(s.tokenHash))?.session).toEqual(s);
    });

    it("deletes the sessions one admin impersonates, naming each with its user, and nothing else", async () => {
      const [a, b, admin, otherAdmin] = [user(), user(), user(), user()];
      for (const u of [a, b, admin, otherAdmin]) await store.users.create(u, []);
      const ofA = session(a.id, { impersonatedBy: admin.id });
      const ofB = session(b.id, { impersonatedBy: admin.id });
      const byOther = session(a.id, { impersonatedBy: otherAdmin.id });
      const own = [session(a.id), session(admin.id)];
      for (const s of [ofA, ofB, byOther, ...own]) expect(await store.sessions.create(s)).toBe(true);
      const gone = await store.sessions.deleteImpersonatedBy(admin.id);
      const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1);
      expect(gone.sort(byId)).toEqual(
        [
          { id: ofA.id, userId: a.id },
          { id: ofB.id, userId: b.id },
        ].sort(byId),
      );
      for (const s of [ofA, ofB]) expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
      for (const s of [byOther, ...own]) expect(await store.sessions.findByTokenHash(s.tokenHash)).not.toBeNull();
      expect(await store.sessions.deleteImpersonatedBy(admin.id)).toEqual([]);
    });

    it("lists a user's sessions newest first, and only theirs", async () => {
      const u = user();
      const other = user();
      await store.users.create(u, []);
      await store.users.create(other, []);
      const older = session(u.id, { createdAt: at(1000), updatedAt: at(1000) });
      const newer = session(u.id, { createdAt: at(2000), updatedAt: at(2000), ip: null, userAgent: null });
      const expired = session(u.id, { createdAt: at(500), expiresAt: at(-1) });
      const theirs = session(other.id, { createdAt: at(3000) });
      for (const s of [older, expired, newer, theirs]) await store.sessions.create(s);
      expect(await store.sessions.listByUser(u.id)).toEqual([newer, older, expired]);
      expect(await store.sessions.listByUser(other.id)).toEqual([theirs]);
      expect(await store.sessions.listByUser("nobody")).toEqual([]);
    });

    it("refuses a session for a user that does not exist (deleted by a concurrent request): false, no row", async () => {
      const ghost = session(uid("ghost"));
      expect(await store.sessions.create(ghost)).toBe(false);
      expect(await store.sessions.findByTokenHash(ghost.tokenHash)).toBeNull();
      expect(await store.sessions.delete(ghost.id)).toBe(false);
      const u = user();
      await store.users.create(u, []);
      const s = session(u.id);
      expect(await store.sessions.create(s)).toBe(true);
      expect(await store.users.delete(u.id)).toBe(true);
      expect(await store.sessions.create(session(u.id))).toBe(false);
    });

    it("deletes all of a user's sessions except one, and expired ones", async () => {
      const u = user();
      await store.users.create(u, []);
      const keep = session(u.id);
      const others = [session(u.id), session(u.id)];
      const expired = session(u.id, { expiresAt: at(-1) });
      for (const s of [keep, ...others, expired]) await store.sessions.create(s);
      expect(await store.sessions.deleteByUser(u.id, keep.id)).toBe(3);
      expect(await store.sessions.findByTokenHash(keep.tokenHash)).not.toBeNull();
      const old = session(u.id, { expiresAt: at(-1) });
      await store.sessions.create(old);
      expect(await store.sessions.deleteExpired(T0)).toBeGreaterThanOrEqual(1);
      expect(await store.sessions.findByTokenHash(old.tokenHash)).toBeNull();
      expect(await store.sessions.findByTokenHash(keep.tokenHash)).not.toBeNull();
      expect(await store.sessions.deleteByUser(u.id)).toBe(1);
    });

    it("deleteExpired with a limit removes at most that many per call (the sweep's batches)", async () => {
      const u = user();
      await store.users.create(u, []);
      // Far in the past: in a shared store only these rows are expired at this "now".
      const ancient = new Date(Date.UTC(2001, 0, 1));
      const old = Array.from({ length: 3 }, () => session(u.id, { expiresAt: ancient }));
      for (const s of old) await store.sessions.create(s);
      const keep = session(u.id);
      await store.sessions.create(keep);
      expect(await store.sessions.deleteExpired(ancient, 2)).toBe(2);
      expect(await store.sessions.deleteExpired(ancient, 2)).toBe(1);
      expect(await store.sessions.deleteExpired(ancient, 2)).toBe(0);
      for (const s of old) expect(await store.sessions.findByTokenHash(s.tokenHash)).toBeNull();
      expect(await store.sessions.findByTokenHash(keep.tokenHash)).not.toBeNull();
    });
  });
}
