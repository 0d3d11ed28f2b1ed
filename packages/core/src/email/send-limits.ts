import type { ResolvedConfig } from "../kernel/config.ts";
import type { Clock } from "../ports/clock.ts";
import type { Store } from "../ports/store.ts";

/**
 * Limits on the emails one address receives, whoever asks and from how many addresses: a resend cooldown per
 * purpose (`email.resendCooldown`, default 60 s) and a budget across every purpose (`email.perRecipient`, default
 * 5 per 15 minutes). A refused send issues nothing, so the code or link already in the mailbox stays valid, and
 * the caller gets the usual answer (`{success: true}`): nothing tells an attacker the limit was reached.
 *
 * @example
 * if (!(await ctx.sendLimits.admit("password-reset-link", email))) return { success: true };
 */
export class SendLimits {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts one send of `purpose` to `email` (normalized) and says whether it may go. A send inside the cooldown of
   * the same purpose is refused without spending the budget.
   */
  async admit(purpose: string, email: string): Promise<boolean> {
    const { resendCooldownMs, perRecipient } = this.config.email;
    const now = this.clock.now();
    const { counters } = this.store;
    if (resendCooldownMs !== null && perRecipient && counters.hitGated) {
      // Both limits in one store step: the budget is spent only when the cooldown admits the send.
      const { next } = await counters.hitGated(
        { key: `mail-cooldown:${purpose}:${email}`, windowMs: resendCooldownMs, max: 1 },
        { key: `mail-budget:${email}`, windowMs: perRecipient.windowMs },
        now,
      );
      return next !== null && next.count <= perRecipient.max;
    }
    if (resendCooldownMs !== null) {
      const cooldown = await counters.hit(`mail-cooldown:${purpose}:${email}`, resendCooldownMs, now);
      if (cooldown.count > 1) return false;
    }
    if (perRecipient) {
      const budget = await counters.hit(`mail-budget:${email}`, perRecipient.windowMs, now);
      if (budget.count > perRecipient.max) return false;
    }
    return true;
  }
}
