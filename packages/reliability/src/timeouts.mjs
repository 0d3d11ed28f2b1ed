// @ts-check
// The store timeouts every reliability instance runs with (instance.mjs); the suite derives its bounds from them.

/** PostgreSQL `connectTimeout` (seconds). */
export const CONNECT_TIMEOUT_S = 2;
/** PostgreSQL `queryTimeout` (seconds). */
export const QUERY_TIMEOUT_S = 3;
/** Redis counters' `connectTimeout` and `commandTimeout` (seconds). */
export const REDIS_TIMEOUT_S = 2;
