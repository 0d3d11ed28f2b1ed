export { SessionService, toUserView, toSessionView, sessionAnswerJson } from "./session.ts";
export type {
  UserView,
  SessionView,
  Credentials,
  CookieDescriptor,
  SignInResult,
  ValidatedSession,
  CachedSession,
} from "./session.ts";
export { isChallenge, signedIn } from "./sign-in-gate.ts";
export type { SecondFactorChallenge, SignInAttempt, SignInGate, SignInMethod, SignInOutcome } from "./sign-in-gate.ts";
