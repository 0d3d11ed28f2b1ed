import type { Journey } from "../harness/journey.ts";
import { apiKeysJourney } from "./api-keys.ts";
import { csrfJourney } from "./csrf.ts";
import { deleteAccountJourney } from "./delete-account.ts";
import { emailOtpJourney } from "./email-otp.ts";
import { getSessionJourney } from "./get-session.ts";
import { jwtJourney } from "./jwt.ts";
import { notFoundJourney } from "./not-found.ts";
import { openApiJourney } from "./openapi.ts";
import { passwordJourney } from "./password.ts";
import { signOutJourney } from "./sign-out.ts";
import { twoFactorJourney } from "./two-factor.ts";

/** Every journey, in run order. A feature's journey runs only where its paths are in `/openapi.json`. */
export const JOURNEYS: readonly Journey[] = [
  passwordJourney,
  getSessionJourney,
  signOutJourney,
  csrfJourney,
  notFoundJourney,
  openApiJourney,
  emailOtpJourney,
  apiKeysJourney,
  jwtJourney,
  twoFactorJourney,
  deleteAccountJourney,
];

export {
  apiKeysJourney,
  csrfJourney,
  deleteAccountJourney,
  emailOtpJourney,
  getSessionJourney,
  jwtJourney,
  notFoundJourney,
  openApiJourney,
  passwordJourney,
  signOutJourney,
  twoFactorJourney,
};
