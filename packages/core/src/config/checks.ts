import { AuthConfigError } from "../errors/errors.ts";
import { parseDuration, type Duration } from "./duration.ts";

/** An option check: the value parses as a duration (`"15m"`, `"1d"`). */
export const isDuration = (value: Duration, field: string): void => void parseDuration(value, field);

/** An option check: an integer from `min` to `max`, else `message`. */
export const integerIn =
  (min: number, max: number, message: string) =>
  (value: number, field: string): void => {
    if (!Number.isInteger(value) || value < min || value > max) throw new AuthConfigError(field, message);
  };

/** An option check: a path of this site (`/reset-password`), never a scheme-relative `//host` or a backslash. */
export const isPath = (value: string, field: string): void => {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.includes("\\"))
    throw new AuthConfigError(field, "must be a path starting with a single /");
};
