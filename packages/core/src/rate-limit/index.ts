export { RateLimiter, Lockout, ipBucket, retryAfterText } from "./rate-limit.ts";
