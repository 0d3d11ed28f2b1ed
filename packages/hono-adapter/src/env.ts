import type { SessionView, UserView } from "@latchkey/core";

/** Context variables set by `requireUser`, `requireSession` and `requireApiKey`. */
export interface AuthVariables {
  user: UserView;
  session: SessionView;
}

export interface OptionalAuthVariables {
  user: UserView | null;
  session: SessionView | null;
}

/** The Hono env of the auth sub-app. */
export interface AuthEnv {
  Variables: Partial<AuthVariables> & {
    /** The request's resolved session (cached per request; undefined = not looked up yet). */
    latchkeySession?: import("@latchkey/core").ValidatedSession | null;
  };
}
