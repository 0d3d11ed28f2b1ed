import { AuthConfigError } from "../errors/errors.ts";

/**
 * The keys an options object may carry. `true` accepts any value there (functions, stores, lists, free-form
 * maps); a nested shape is checked when the value is a plain object; `{ [EACH]: shape }` checks every entry of a
 * map with free keys (e.g. `rateLimit.rules["/path"]`) against `shape`. Adding an option is one line here.
 *
 * @example
 * const shape: OptionShape = { enabled: true, window: true, rules: { [EACH]: { window: true, max: true } } };
 */
export interface OptionShape {
  readonly [key: string]: true | OptionShape;
  readonly [EACH]?: OptionShape;
}

/** Marks a map with free keys whose values all follow one shape. */
export const EACH: unique symbol = Symbol("each");

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The valid name closest to `name`: the smallest edit distance (case-insensitive) within about a third of its
 * length, else the shortest name containing it or contained in it (`prefix` -> `defaultPrefix`). `null` when none.
 *
 * @example
 * nearestName("enable", ["enabled", "window", "max"]); // "enabled"
 */
export function nearestName(name: string, candidates: readonly string[]): string | null {
  const lower = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best !== null && bestDistance <= Math.max(2, Math.ceil(lower.length / 3))) return best;
  if (lower.length < 3) return null;
  const related = candidates.filter((c) => c.toLowerCase().includes(lower) || lower.includes(c.toLowerCase()));
  return related.sort((a, b) => a.length - b.length)[0] ?? null;
}

function join(path: string, key: string): string {
  if (path === "") return key;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/**
 * Throws `AuthConfigError` for the first key of `value` (at any depth of `shape`) that is not an option, naming
 * its path and the nearest valid name: `rateLimit.enable is not an option; did you mean rateLimit.enabled?`.
 * Values that are not plain objects are left to the feature's own validation.
 *
 * @example
 * rejectUnknownOptions({ rateLimit: { enable: false } }, { rateLimit: { enabled: true } }, "");
 * // AuthConfigError: rateLimit.enable is not an option; did you mean rateLimit.enabled?
 */
export function rejectUnknownOptions(value: unknown, shape: OptionShape, path: string): void {
  if (!isPlainObject(value)) return;
  const each = shape[EACH];
  if (each) {
    for (const [key, entry] of Object.entries(value)) rejectUnknownOptions(entry, each, join(path, key));
    return;
  }
  const names = Object.keys(shape);
  for (const [key, entry] of Object.entries(value)) {
    const rule = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (rule === undefined) {
      const near = nearestName(key, names);
      const hint =
        near !== null
          ? `did you mean ${join(path, near)}?`
          : names.length === 0
            ? "none are accepted here"
            : `valid: ${names.map((n) => join(path, n)).join(", ")}`;
      throw new AuthConfigError(join(path, key), `is not an option; ${hint}`);
    }
    if (rule !== true && entry !== undefined) rejectUnknownOptions(entry, rule, join(path, key));
  }
}
