declare namespace App {
  interface Locals {
    /** Set by the middleware (src/middleware.ts) on every request: the signed-in user, or null. */
    user: import("@latchkey/core").UserView | null;
    session: import("@latchkey/core").SessionView | null;
  }
}
