import { AuthConfigError, AuthError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "../config/duration.ts";
import { rejectUnknownOptions } from "../config/closed-options.ts";
import { describeError } from "../errors/describe.ts";
import { consoleLogger, type Logger } from "../logger/logger.ts";
import type { PasswordCheck } from "./policy.ts";

/** Options of `pwnedPasswords()`. */
export interface PwnedPasswordsOptions {
  /** The range API: the first 5 hex characters of the SHA-1 are appended. Default "https://api.pwnedpasswords.com/range/". */
  endpoint?: string;
  /** How long to wait for the range API. Default "3s". */
  timeout?: Duration;
  /**
   * When the range API cannot be reached (timeout, network error, non-200, or a 200 whose body is not a range
   * list, such as a proxy's block page): "allow" (default) accepts the
   * password and logs a warning; "deny" refuses it with 503 `PASSWORD_CHECK_UNAVAILABLE`.
   */
  onUnavailable?: "allow" | "deny";
}

const DEFAULT_ENDPOINT = "https://api.pwnedpasswords.com/range/";

async function sha1Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)]
    .map((b) => b.toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

/** A range answer: lines `<35 hex characters>:<count>` (CRLF or LF), at least one. */
const RANGE_LINE = /^[0-9A-Fa-f]{35}:\d+$/;
function isRangeAnswer(body: string): boolean {
  const lines = body.split("\n").map((line) => line.trim());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.length > 0 && lines.every((line) => RANGE_LINE.test(line));
}

/**
 * A ready `passwordPolicy.check` over the k-anonymity range API of Have I Been Pwned: only the first 5 hex
 * characters of the password's SHA-1 leave the process (with `Add-Padding: true`, so the answer's size says
 * nothing either). A password seen in a breach is refused with 400 `PASSWORD_COMPROMISED`.
 *
 * @example
 * createAuth({ ..., emailPassword: { passwordPolicy: { check: pwnedPasswords({ onUnavailable: "allow" }) } } });
 */
export function pwnedPasswords(options: PwnedPasswordsOptions = {}): PasswordCheck {
  if (options === null || typeof options !== "object") throw new AuthConfigError("pwnedPasswords", "must be an object");
  rejectUnknownOptions(options, { endpoint: true, timeout: true, onUnavailable: true }, "pwnedPasswords");
  const endpoint = options.endpoint ?? DEFAULT_ENDPOINT;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new AuthConfigError("pwnedPasswords.endpoint", "must be an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw new AuthConfigError("pwnedPasswords.endpoint", "must be http(s)");
  const timeoutMs = parseDuration(options.timeout ?? "3s", "pwnedPasswords.timeout");
  const onUnavailable = options.onUnavailable ?? "allow";
  if (onUnavailable !== "allow" && onUnavailable !== "deny")
    throw new AuthConfigError("pwnedPasswords.onUnavailable", 'must be "allow" or "deny"');
  const base = endpoint.endsWith("/") ? endpoint : `${endpoint}/`;

  const unavailable = (reason: string, logger: Logger): undefined => {
    if (onUnavailable === "deny")
      throw new AuthError("PASSWORD_CHECK_UNAVAILABLE", "The password cannot be checked right now; try again later");
    logger.warn(
      { component: "pwnedPasswords", reason },
      `pwnedPasswords: the range API is unavailable (${reason}); the password was allowed`,
    );
    return undefined;
  };

  // Latchkey passes its `logger`; called on its own (a test, an app's own form), the console gets the line.
  return async (password, _user, context) => {
    const logger = context?.logger ?? consoleLogger();
    const hash = await sha1Hex(password);
    const prefix = hash.slice(0, 5);
    const suffix = hash.slice(5);
    let body: string;
    try {
      const res = await fetch(base + prefix, {
        headers: { "Add-Padding": "true", accept: "text/plain" },
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (res.status !== 200) {
        await res.body?.cancel();
        return unavailable(`status ${res.status}`, logger);
      }
      body = await res.text();
    } catch (error) {
      return unavailable(describeError(error), logger);
    }
    // A 200 that is not a range list (a proxy's block page, a captive portal) checked nothing.
    if (!isRangeAnswer(body)) return unavailable("the answer is not a range list", logger);
    for (const line of body.split("\n")) {
      const [candidate, count] = line.trim().split(":");
      // Padding rows carry a count of 0.
      if (candidate?.toUpperCase() === suffix && Number(count) > 0)
        throw new AuthError("PASSWORD_COMPROMISED", "This password has appeared in a data breach; choose another one");
    }
    return undefined;
  };
}
