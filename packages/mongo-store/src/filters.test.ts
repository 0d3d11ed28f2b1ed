import { describe, expect, it } from "vitest";
import { auditPort } from "./audit.ts";
import { accountsPort } from "./accounts.ts";
import { apiKeysPort } from "./api-keys.ts";
import { countersPort } from "./counters.ts";
import { sessionsPort } from "./sessions.ts";
import { usersPort } from "./users.ts";
import { verificationsPort } from "./verifications.ts";
import { bareFields, HOSTILE, noTransactions, recordingCollections } from "./filter-recording.ts";

// The second wall behind auth.api's input checks: every filter value a caller supplies reaches MongoDB as
// `{ $eq: value }`, so even an object that slipped through would be compared, not run as a query operator.
// Recorded through fake collections (no server), so this runs on every machine.

describe("MongoDB filters take caller values through $eq", () => {
  it("the trusted-call paths of issue 33 (revokeSessions, deleteUser, listAuditEvents) and every id lookup", async () => {
    const { c, seen } = recordingCollections();
    const users = usersPort(c, noTransactions);
    const sessions = sessionsPort(c);
    await sessions.deleteByUser(HOSTILE);
    await sessions.deleteByUser("u_1", HOSTILE);
    await sessions.findByTokenHash(HOSTILE);
    await sessions.delete(HOSTILE);
    await sessions.touch(HOSTILE, new Date(), new Date());
    await users.delete(HOSTILE);
    await users.findById(HOSTILE);
    await users.findByEmail(HOSTILE);
    await users.findByUsername(HOSTILE);
    await auditPort(c).list({ userId: HOSTILE, limit: 10, cursor: null });
    await accountsPort(c).listByUser(HOSTILE);
    await accountsPort(c).deleteAllExcept(HOSTILE, "credential");
    const verifications = verificationsPort(c);
    await verifications.findByIdentifier(HOSTILE);
    await verifications.findByValueHash(HOSTILE);
    await verifications.consume(HOSTILE);
    await verifications.deleteByIdentifier(HOSTILE);
    await verifications.recordFailedAttempt(HOSTILE, 3);
    const keys = apiKeysPort(c);
    await keys.findByHash(HOSTILE);
    await keys.findByHashWithOwner(HOSTILE);
    await keys.findById(HOSTILE);
    await keys.listByUser(HOSTILE, { limit: 10, cursor: null });
    await keys.listByOrganization(HOSTILE, { limit: 10, cursor: null });
    await keys.delete(HOSTILE, HOSTILE);
    const counters = countersPort(c);
    await counters.peek(HOSTILE, 0);
    await counters.delete(HOSTILE);

    expect(seen.length).toBeGreaterThanOrEqual(28);
    const bare = seen.flatMap((r) => bareFields(r.filter).map((field) => `${r.collection}.${r.method} ${field}`));
    expect(bare).toEqual([]);
    // The hostile object arrives only as the operand of $eq (or $ne for the kept session), never as a filter.
    const revoke = seen.find((r) => r.collection === "sessions" && r.method === "deleteMany");
    expect(revoke?.filter).toEqual({ userId: { $eq: HOSTILE } });
    const audit = seen.find((r) => r.collection === "audit" && r.method === "find");
    expect(audit?.filter).toEqual({ userId: { $eq: HOSTILE } });
  });

  it("the check itself flags a bare value (it can fail)", () => {
    expect(bareFields({ userId: "u_1" })).toEqual(["userId"]);
    expect(bareFields({ userId: { $ne: null } })).toEqual([]);
    expect(bareFields({ $and: [{ _id: "x" }] })).toEqual(["_id"]);
  });
});
