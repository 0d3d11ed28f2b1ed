import { AuthConfigError } from "../errors/errors.ts";

/** A time span: seconds as a number, a compact string ("30s", "10m", "7d"), or an object. */
export type Duration =
  | number
  | `${number}${"s" | "m" | "h" | "d" | "w"}`
  | { weeks?: number; days?: number; hours?: number; minutes?: number; seconds?: number };

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * Parses a `Duration` into milliseconds, throwing `AuthConfigError` naming `field` when malformed.
 *
 * @example
 * import { parseDuration } from "@latchkey/core";
 * parseDuration("15m", "lockout.window"); // 900000
 */
export function parseDuration(value: Duration, field: string): number {
  let seconds: number;
  if (typeof value === "number") {
    seconds = value;
  } else if (typeof value === "string") {
    const match = /^(\d+(?:\.\d+)?)\s*([smhdw])$/.exec(value.trim());
    if (!match)
      throw new AuthConfigError(
        field,
        `must be seconds or a compact duration like "30s", "15m", "7d" (got "${value}")`,
      );
    seconds = Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
  } else if (value !== null && typeof value === "object") {
    const { weeks = 0, days = 0, hours = 0, minutes = 0, seconds: s = 0 } = value;
    for (const [k, v] of Object.entries(value)) {
      if (!["weeks", "days", "hours", "minutes", "seconds"].includes(k) || typeof v !== "number") {
        throw new AuthConfigError(field, `has an unknown or non-numeric part "${k}"`);
      }
    }
    seconds = weeks * 604800 + days * 86400 + hours * 3600 + minutes * 60 + s;
  } else {
    throw new AuthConfigError(field, "must be a duration");
  }
  if (!Number.isFinite(seconds) || seconds <= 0) throw new AuthConfigError(field, "must be a positive duration");
  return Math.round(seconds * 1000);
}
