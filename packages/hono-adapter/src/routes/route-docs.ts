import type { ResolvedConfig, ResolvedRule } from "@latchkey/core";

/** The documented description of each error status. */
export const ERROR_TEXT: Record<number, string> = {
  400: "Invalid input (`INVALID_REQUEST` with `details`, or a more specific code; also a body nested more than 32 levels deep)",
  401: "Not authenticated or wrong credentials",
  403: "Forbidden: untrusted (`INVALID_ORIGIN`) or missing (`MISSING_ORIGIN`) `Origin` on a cookie-authenticated write, or the operation's own reasons",
  404: "Not found",
  405: "Wrong method for this path (`METHOD_NOT_ALLOWED`; the `Allow` header lists the right ones)",
  409: "Conflict",
  413: "Body over 64 KiB",
  415: "Body is not application/json",
  422: "Already exists",
  429: "Rate limited or locked (`Retry-After` header)",
  503: "`DATABASE_UNAVAILABLE`: the database cannot be reached, or `BUSY`: too many password hashes in flight (`Retry-After` header)",
};

const UNITS: Array<[ms: number, name: string]> = [
  [86_400_000, "day"],
  [3_600_000, "hour"],
  [60_000, "minute"],
  [1000, "second"],
];

/**
 * A rule in words: "3 requests per minute", "20 requests per 5 minutes".
 *
 * @example
 * ruleText({ windowMs: 60_000, max: 3 }); // "3 requests per minute"
 */
export function ruleText(rule: ResolvedRule): string {
  const [size, unit] = UNITS.find(([ms]) => rule.windowMs % ms === 0) ?? [1, "millisecond"];
  const count = rule.windowMs / size;
  const window = count === 1 ? unit : `${count} ${unit}s`;
  return `${rule.max} ${rule.max === 1 ? "request" : "requests"} per ${window}`;
}

/** The description with the route's rule in force appended, so the document states the limit it enforces. */
export function withRuleText(description: string, path: string, rule: ResolvedRule): string {
  return `${description}\n\nRate limit: ${ruleText(rule)} per IP (\`rateLimit.rules["${path}"]\`).`;
}

/** "5 emails per 15 minutes": a send rule in words. */
function emailsText(rule: ResolvedRule): string {
  return ruleText(rule).replace("requests", "emails").replace("request", "email");
}

/** The description with the email send limits in force appended (routes that email someone). */
export function withEmailLimitsText(description: string, email: ResolvedConfig["email"] | null): string {
  if (!email) return description;
  const budget = email.perRecipient
    ? `at most ${emailsText(email.perRecipient)} (\`email.perRecipient\`) across every route that emails`
    : null;
  const cooldown =
    email.resendCooldownMs === null
      ? null
      : `one per purpose every ${ruleText({ windowMs: email.resendCooldownMs, max: 1 }).replace(/^1 request per /, "")} (\`email.resendCooldown\`)`;
  const perRequester = [budget, cooldown].filter((part) => part !== null);
  const cap = email.recipientCap
    ? ` Every network together: at most ${emailsText(email.recipientCap)} to one address (\`email.recipientCap\`); requests from the account's own session or device cookie are not counted in it.`
    : "";
  if (perRequester.length === 0 && cap === "") return description;
  const first =
    perRequester.length === 0
      ? ""
      : ` per requesting network (IPv4 /24, IPv6 /48), or for requests carrying the account's own session or device cookie, each address receives ${perRequester.join(" and ")}.`;
  return `${description}\n\nEmail limits:${first}${cap} Past them: 429 \`RATE_LIMITED\` with \`Retry-After\`, for registered and unknown addresses alike; nothing is issued or sent, so the code or link already sent stays valid.`;
}

/** The description with the freshness rule appended on routes that need a recent sign-in. */
export function withFreshText(description: string, fresh: boolean): string {
  return fresh
    ? `${description}\n\nNeeds a fresh session: one created less than \`session.freshAge\` ago (403 \`SESSION_NOT_FRESH\` otherwise; sign in again).`
    : description;
}
