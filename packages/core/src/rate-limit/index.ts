export { RateLimiter, HashBudget, Lockout, ipBucket, retryAfterText, lockoutIdentifier } from "./rate-limit.ts";
export { counterBinding } from "./counter-binding.ts";
