import { magicLinkVerify, socialCallback, twoFactorVerify } from "./pooled-scenarios.ts";
import type { Scenario } from "./scenario.ts";
import { apiKeyVerify, getSession, jwks, otpRoundTrip, signIn, token } from "./standard-scenarios.ts";

export type { Feature, Scenario } from "./scenario.ts";

/**
 * Order matters for fairness only through what a scenario leaves in the store: the read-only scenarios run
 * first, then the ones that add sessions (sign-in) and users (OTP), on both servers alike.
 */
export const SCENARIOS: Scenario[] = [
  getSession(true),
  getSession(false),
  apiKeyVerify("unlimited"),
  apiKeyVerify("quota"),
  token,
  jwks,
  signIn,
  otpRoundTrip,
  twoFactorVerify,
  magicLinkVerify,
  socialCallback(false),
  socialCallback(true),
];
