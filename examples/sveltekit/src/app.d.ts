import type { SessionView, UserView } from "@latchkey/core";

declare global {
  namespace App {
    interface Locals {
      /** Set by the handle hook (src/hooks.server.ts) on every request: the signed-in user, or null. */
      user: UserView | null;
      session: SessionView | null;
    }
  }
}
