export { RateLimiter, Lockout, ipBucket } from "./rate-limit.ts";
