export {
  RateLimiter,
  HashBudget,
  Lockout,
  ipBucket,
  retryAfterText,
  lockoutIdentifier,
} from "./rate-limit.ts";
export { counterBinding, keyedCounters, storedCounterKey } from "./counter-binding.ts";
export { forwardedAddress, parseIp, ipBuckets } from "./ip.ts";
