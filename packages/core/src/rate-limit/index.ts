export { RateLimiter, HashBudget, Lockout, ipBucket, retryAfterText, lockoutIdentifier } from "./rate-limit.ts";
export { counterBinding, keyedCounters, storedCounterKey } from "./counter-binding.ts";
