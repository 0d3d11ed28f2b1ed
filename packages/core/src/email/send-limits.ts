import { AuthError } from "../errors/errors.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import { retryAfterText } from "../rate-limit/rate-limit.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { Clock } from "../ports/clock.ts";
import type { CounterState } from "../ports/records.ts";
import type { Store } from "../ports/store.ts";

/**
 * Who asked for a send, as the send limits count it: the account's own known device or session
 * (`account:<userId>`), else the requesting network (`net:203.0.113.0/24`, `net:2001:db8:1::/48`), else
 * `net:unknown` (no client address: trusted `auth.api` calls and clients `getClientIp` could not place).
 */
type Requester = { key: string; known: boolean };

/** Why a send may not go, and the seconds until it may (`Retry-After`). */
export interface SendRefusal {
  limit: "cooldown" | "per-network" | "per-address";
  retryAfter: number;
}

/**
 * The enclosing network of a client address as the email send limits count it: IPv4 by its /24, IPv6 by its /48
 * (an IPv4-mapped IPv6 address as the IPv4 one). Anything else (not an address) is returned trimmed and
 * lowercased, so it still counts as one requester of its own.
 *
 * @example
 * requestingNetwork("203.0.113.77"); // "203.0.113.0/24"
 * requestingNetwork("2001:db8:1:2:3:4:5:6"); // "2001:db8:1::/48"
 */
export function requestingNetwork(ip: string): string {
  const v = ip
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v);
  const v4 = mapped ? mapped[1]! : v;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}$/.exec(v4);
  if (octets) return `${octets[1]}.${octets[2]}.${octets[3]}.0/24`;
  if (!v.includes(":")) return v;
  const zoneless = v.split("%")[0]!;
  const [head = "", tail = ""] = zoneless.split("::");
  const left = head ? head.split(":") : [];
  const right = zoneless.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = zoneless.includes("::")
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right]
    : left;
  const prefix = groups.slice(0, 3).map((g) => (g || "0").replace(/^0+(?=.)/, ""));
  return `${prefix.join(":")}::/48`;
}

/**
 * Limits on the emails one address receives, counted so that a stranger cannot spend the owner's share
 * (docs/email.md, "Send limits"):
 *
 * - per requester and address: a resend cooldown per purpose (`email.resendCooldown`, default 60 s) and a budget
 *   across every purpose (`email.perRecipient`, default 5 per 15 minutes). The requester is the requesting network
 *   (IPv4 /24, IPv6 /48), or the account itself when the request comes from one of its known devices or sessions
 *   (`RequestMeta.knownDevice`);
 * - per address, for every network together: a larger cap (`email.recipientCap`, default 30 an hour). Requests from
 *   the account's known devices are not counted in it and never refused by it.
 *
 * A refused send issues nothing, so the code or link already in the mailbox stays valid. The limits run for every
 * address asked about, registered or not, and before the caller looks at eligibility: the same counters move and
 * the same answer comes back whether or not the address has an account, so a refusal (429 `RATE_LIMITED` with
 * `Retry-After`) tells nothing about registration.
 *
 * @example
 * await ctx.sendLimits.enforce("password-reset-link", email, meta, user?.id ?? null);
 */
export class SendLimits {
  constructor(
    private readonly config: ResolvedConfig,
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts one send of `purpose` to `email` (normalized) asked by `meta`'s requester and says whether it may go:
   * null when it may, else the limit that refused it. `ownerId` is the id of the account the address belongs to,
   * or null (no account): a request from that account's known device or session gets the account's own allowance.
   * A send refused by the cooldown spends no budget, and one refused by the requester's budget none of the cap.
   */
  async admit(purpose: string, email: string, meta: RequestMeta, ownerId: string | null): Promise<SendRefusal | null> {
    const { resendCooldownMs, perRecipient, recipientCap } = this.config.email;
    const requester = await requesterOf(meta, ownerId);
    const now = this.clock.now();
    const { counters } = this.store;
    const retryAfter = (state: CounterState) => Math.max(1, Math.ceil((state.resetAt - now) / 1000));
    const scoped = `${requester.key}|${email}`;
    const cooldownKey = `mail-cooldown:${purpose}|${scoped}`;
    const budgetKey = `mail-budget:${scoped}`;
    if (resendCooldownMs !== null && perRecipient && counters.hitGated) {
      // Both limits in one store step: the budget is spent only when the cooldown admits the send.
      const { gate, next } = await counters.hitGated(
        { key: cooldownKey, windowMs: resendCooldownMs, max: 1 },
        { key: budgetKey, windowMs: perRecipient.windowMs },
        now,
      );
      if (next === null) return { limit: "cooldown", retryAfter: retryAfter(gate) };
      if (next.count > perRecipient.max) return { limit: "per-network", retryAfter: retryAfter(next) };
    } else {
      if (resendCooldownMs !== null) {
        const cooldown = await counters.hit(cooldownKey, resendCooldownMs, now);
        if (cooldown.count > 1) return { limit: "cooldown", retryAfter: retryAfter(cooldown) };
      }
      if (perRecipient) {
        const budget = await counters.hit(budgetKey, perRecipient.windowMs, now);
        if (budget.count > perRecipient.max) return { limit: "per-network", retryAfter: retryAfter(budget) };
      }
    }
    if (recipientCap && !requester.known) {
      const cap = await counters.hit(`mail-cap:${email}`, recipientCap.windowMs, now);
      if (cap.count > recipientCap.max) return { limit: "per-address", retryAfter: retryAfter(cap) };
    }
    return null;
  }

  /**
   * `admit`, throwing 429 `RATE_LIMITED` (with `retryAfter`) when the send may not go. Safe on enumeration-safe
   * routes because callers run it for registered and unknown addresses alike, before eligibility is looked at.
   */
  async enforce(purpose: string, email: string, meta: RequestMeta, ownerId: string | null): Promise<void> {
    const refused = await this.admit(purpose, email, meta, ownerId);
    if (!refused) return;
    throw new AuthError(
      "RATE_LIMITED",
      `${REFUSAL_TEXT[refused.limit]}; try again in ${retryAfterText(refused.retryAfter)}`,
      {
        retryAfter: refused.retryAfter,
      },
    );
  }
}

const REFUSAL_TEXT: Record<SendRefusal["limit"], string> = {
  cooldown: "An email for this purpose was just sent to this address",
  "per-network": "Too many emails to this address from your network",
  "per-address": "Too many emails to this address",
};

/**
 * The requester of a send. `knownDevice` is asked for registered and unknown addresses alike (with null for the
 * latter), so the work it does cannot tell the two apart.
 */
async function requesterOf(meta: RequestMeta, ownerId: string | null): Promise<Requester> {
  if (meta.knownDevice && (await meta.knownDevice(ownerId)) && ownerId !== null)
    return { key: `account:${ownerId}`, known: true };
  return { key: meta.ip === null ? "net:unknown" : `net:${requestingNetwork(meta.ip)}`, known: false };
}
