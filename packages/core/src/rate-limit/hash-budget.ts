import { AuthError } from "../errors/errors.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";

import { retryAfterText } from "./retry-after.ts";

/**
 * The budget every caller shares (not per IP) for routes that hash a password without a session
 * (`passwordHashing.unauthenticatedBudget`): past it they answer 503 `BUSY` with `Retry-After` until the window
 * ends, so a botnet of addresses cannot keep every core hashing. One counter in the store, shared by instances.
 */
export class HashBudget {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Counts one unauthenticated hashing request; throws `BUSY` past the budget. */
  async spend(): Promise<void> {
    const rule = this.config.passwordHashing.unauthenticatedBudget;
    if (!rule) return;
    const now = this.clock.now();
    const state = await this.store.counters.hit("rl:hashing:unauthenticated", rule.windowMs, now);
    if (state.count > rule.max) {
      const retryAfter = Math.max(1, Math.ceil((state.resetAt - now) / 1000));
      throw new AuthError("BUSY", `Too many sign-in attempts overall; try again in ${retryAfterText(retryAfter)}`, {
        retryAfter,
      });
    }
  }
}
