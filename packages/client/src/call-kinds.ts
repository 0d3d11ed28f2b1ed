import type { OperationId } from "./types.ts";

// Calls after which the session (or the user in it) may have changed: the store refetches when they succeed.
export const SESSION_CHANGING = new Set<OperationId>([
  "signUpEmail",
  "signInEmail",
  "signInEmailOtp",
  "signOut",
  "verifyEmail",
  "verifyEmailOtp",
  "updateUser",
  "changeEmail",
  "setPassword",
  "changePassword",
  "resetPassword",
  "resetPasswordOtp",
  "deleteAccount",
  "confirmAccountDeletion",
  "revokeSession",
  "revokeSessions",
  "verifyMagicLink",
  "verifyTwoFactor",
  "verifyTwoFactorRecoveryCode",
  // A native app's `{ provider, idToken }` sign-in answers a session (the redirect flow only a URL).
  "signInSocial",
  "passkeyAuthenticateVerify",
  "passkeySignUpVerify",
  // The session's active organization (`session.activeOrganizationId`).
  "createOrganization",
  "setActiveOrganization",
]);
// Sign-ins a trusted device of `twoFactor()` may skip the second step of (bearer mode sends its token with them).
export const SIGN_INS = new Set<OperationId>([
  "signInEmail",
  "signInEmailOtp",
  "verifyMagicLink",
  "verifyEmail",
  "signInSocial",
  "passkeyAuthenticateVerify",
]);
// Calls that finish a pending two-factor sign-in (bearer mode sends the pending token with them).
export const SECOND_STEPS = new Set<OperationId>(["verifyTwoFactor", "verifyTwoFactorRecoveryCode"]);
// Calls that end the current session: bearer mode forgets its token.
export const SESSION_ENDING = new Set<OperationId>([
  "signOut",
  "deleteAccount",
  "confirmAccountDeletion",
  "revokeSessions",
]);
