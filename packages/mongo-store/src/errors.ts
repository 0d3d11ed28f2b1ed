/** The MongoDB server's error code for a unique-index violation (E11000). */
const DUPLICATE_KEY = 11000;

/** The parts of a `MongoServerError` for E11000 that say which unique index was hit. */
export interface DuplicateKeyErrorShape {
  code: number;
  keyPattern?: Record<string, unknown>;
  keyValue?: Record<string, unknown>;
}

/** True for a duplicate-key error (driver errors carry the server's `code`). */
export function isDuplicateKeyError(error: unknown): error is DuplicateKeyErrorShape {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === DUPLICATE_KEY;
}

/**
 * The indexed fields a duplicate-key error names, from `keyPattern` (else `keyValue`); every server the driver
 * supports (4.4+) sends both. Null when the error is not a duplicate-key error; empty when it names no field,
 * which callers treat as "not a conflict I know" and rethrow.
 */
export function duplicateKeyFields(error: unknown): string[] | null {
  if (!isDuplicateKeyError(error)) return null;
  for (const described of [error.keyPattern, error.keyValue]) {
    if (described && typeof described === "object" && Object.keys(described).length > 0) return Object.keys(described);
  }
  return [];
}

/**
 * Maps a duplicate-key error from the users collection to the port's conflict: the email index or the username
 * index. Anything else (another index, another error) is null and must be rethrown by the caller.
 */
export function userConflict(error: unknown): "email" | "username" | null {
  const fields = duplicateKeyFields(error);
  if (fields === null || fields.length !== 1) return null;
  if (fields[0] === "email") return "email";
  if (fields[0] === "username") return "username";
  return null;
}

/** True when a duplicate-key error is about exactly `field` (a single-field unique index). */
export function isDuplicateOn(error: unknown, field: string): boolean {
  const fields = duplicateKeyFields(error);
  return fields !== null && fields.length === 1 && fields[0] === field;
}

const UNAVAILABLE_NAMES = new Set([
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoServerSelectionError",
  "MongoTopologyClosedError",
  "MongoNotConnectedError",
  "PoolClearedError",
  "MongoPoolClearedError",
]);

/** True when a MongoDB driver error means the server cannot be reached (network, server selection, pool cleared). */
export function isMongoUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (UNAVAILABLE_NAMES.has(current.name)) return true;
    current = current.cause;
  }
  return false;
}
