export { RateLimiter, Lockout, ipBucket, retryAfterText, lockoutIdentifier } from "./rate-limit.ts";
