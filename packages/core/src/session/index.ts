export { SessionService, toUserView, toSessionView } from "./session.ts";
export type {
  UserView,
  SessionView,
  Credentials,
  CookieDescriptor,
  SignInResult,
  ValidatedSession,
} from "./session.ts";
