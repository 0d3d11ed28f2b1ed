import type { Store } from "@latchkey/core";
import type { E2eClient, FetchHandler } from "./client.ts";

/** What the suite runs against: a handler plus what it needs to know about it. */
export interface E2eTarget {
  handler: FetchHandler;
  /** The origin requests are addressed to; CSRF must trust it (it is the auth's `baseUrl`). */
  baseUrl: string;
  /** Where the handler mounts the auth routes: "/auth" for `auth.handler`, "/api/auth" for the Next.js route. */
  basePath: string;
  /**
   * The latest plaintext code or token delivered to an email (an `OtpGenerated` listener, like `auth.getOtp`);
   * omit it and the OTP journeys are skipped.
   */
  latestOtp?(email: string): string | undefined | Promise<string | undefined>;
  /** The store, when the suite runs in the same process as the handler: journeys then check effects in it. */
  store?: Store;
}

/** What a journey gets: its own client (own client IP, so rate limits never mix) and the target. */
export interface JourneyContext {
  client: E2eClient;
  target: E2eTarget;
  /** A fresh address for this journey, e.g. `otp-1f2e3d@e2e.example`. */
  email(label: string): string;
}

/** One user-visible flow, runnable on any runtime: web-standard APIs only. */
export interface Journey {
  name: string;
  /** OpenAPI paths (relative to the mount) the journey needs; it is skipped while any is missing (feature not installed). */
  requiresPaths?: readonly string[];
  /** Needs `target.latestOtp`. */
  requiresOtpCapture?: boolean;
  run(context: JourneyContext): Promise<void>;
}
