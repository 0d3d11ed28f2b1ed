/**
 * Test utilities for Latchkey's own tests: test databases (a fresh PostgreSQL database on the server the Vitest
 * global setup started, or a temporary SQLite file), and the seam tools of docs/invariants.md: a deterministic
 * scheduler that interleaves two flows' store calls, a fault-injecting store, and the invariants as functions over
 * a store snapshot.
 *
 * @example
 * import { createTestPostgresDatabase, exploreInterleavings } from "@latchkey/test-support";
 */
export { createTestPostgresDatabase, createTestSqliteFile, testPostgresUrl } from "./test-databases.ts";
export type { TestDatabase, TestPostgresServerName } from "./test-databases.ts";
export { instrumentStore, runAsFlow, currentFlow, WRITE_METHODS } from "./seams/instrument.ts";
export type { PortCall, PortName, StoreHooks } from "./seams/instrument.ts";
export { createScheduler, exploreInterleavings, seededRandom } from "./seams/scheduler.ts";
export type {
  Chooser,
  Exploration,
  ExplorationReport,
  PendingStep,
  ScheduleRun,
  Scheduler,
} from "./seams/scheduler.ts";
export { createFaultStore, exploreFaults, InjectedCrash, InjectedWriteFailure } from "./seams/faults.ts";
export type { FaultExploration, FaultPlan, FaultReport, FaultStore } from "./seams/faults.ts";
export { takeSnapshot, subjectKey } from "./seams/snapshot.ts";
export type { OrganizationState, Snapshot, SnapshotScope } from "./seams/snapshot.ts";
export {
  describeViolations,
  emailIndexConsistent,
  everyOrganizationHasAnOwner,
  noMemberOfDeleted,
  nothingOfDeletedUsers,
  oneActiveJwk,
  oneUserPerProviderSubject,
  noSessionOfBannedUser,
  structuralViolations,
  usersCanSignIn,
  usersHaveAccounts,
} from "./seams/invariants.ts";
export type { Violation } from "./seams/invariants.ts";
export {
  answeredSessionsExist,
  codesUnderAttemptLimit,
  lockoutBound,
  noDeviceOutlivesPasswordChange,
  noSessionFromReplacedPassword,
  quotaConserved,
  refusedKeyStaysRefused,
  spentTokenHadEffect,
} from "./seams/flow-invariants.ts";
export type { PasswordSession, RecogniseDevice, Refusal } from "./seams/flow-invariants.ts";
export { apiKeyRecord } from "./records.ts";
