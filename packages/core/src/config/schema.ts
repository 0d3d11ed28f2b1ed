import { AuthConfigError } from "../errors/errors.ts";
import { EACH, rejectUnknownOptions, type OptionShape } from "./closed-options.ts";

/**
 * One option of type `T`. `Kind` says what an unset value becomes: `"optional"` stays `undefined`, `"default"`
 * takes `default`, `"required"` must be set. The JSDoc written above the option in its schema is its
 * documentation: the IDE shows it on the inferred options type and `scripts/options-docs.mjs` writes it (with the
 * type argument and the default) into docs/options.md.
 *
 * @example
 * const ttl = defaulted<Duration>("30s", { check: (v, field) => parseDuration(v, field) });
 */
export interface OptionSpec<T, Kind extends OptionKind = OptionKind> {
  readonly kind: Kind;
  /** The value an unset option takes (`kind: "default"`). */
  readonly default?: T;
  /** With a default: `null` is a value of its own (it turns something off) instead of meaning "unset". */
  readonly nullable?: boolean;
  /** Throws `AuthConfigError(field, ...)` for a bad value; runs on every set value and on the default. */
  check?(value: T, field: string): void;
  /** The keys an object value may carry (closed, checked at any depth); documented as `option.key` rows. */
  readonly fields?: OptionSchema;
  /** A map with free keys whose entries follow this schema (`rateLimit.rules["<path>"]`). */
  readonly each?: OptionSchema;
  /** The only keys a map value may carry (`email.templates["<name>"]`). */
  readonly names?: readonly string[];
  /** Type-only: the value's type. */
  readonly "~type"?: T;
}

/** An option with a default (`defaulted<T>(value)`): `default` is always there. */
export interface DefaultedOption<T> extends OptionSpec<T, "default"> {
  readonly default: T;
}

/** What an unset option becomes: nothing, its default, or an `AuthConfigError`. */
export type OptionKind = "optional" | "default" | "required";

/** An object of options whose unset members take their defaults (`session`, `cookies`, ...). */
export interface OptionGroup<S extends OptionSchema = OptionSchema> {
  readonly kind: "group";
  readonly group: S;
}

/** An option group: each key an option or a nested group. */
export interface OptionSchema {
  readonly [key: string]: OptionSpec<unknown> | OptionGroup;
}

/** What `optional`, `defaulted` and `required` take besides the default: `check`, `nullable`, `fields`, `each`, `names`. */
export type OptionSettings<T> = Omit<OptionSpec<T>, "kind" | "default" | "~type">;

/** An option that stays `undefined` when unset. */
export function optional<T>(spec: OptionSettings<T> = {}): OptionSpec<T, "optional"> {
  return { ...spec, kind: "optional" };
}

/** An option that takes `value` when unset. */
export function defaulted<T>(value: T, spec: OptionSettings<T> = {}): DefaultedOption<T> {
  return { ...spec, kind: "default", default: value };
}

/**
 * A boolean option with a default. `null` is refused like any other non-boolean ("must be a boolean"): a flag
 * that guards a behaviour (`allowSignUp`, `usage`) must never fall back to its default on a value its author
 * meant as "off".
 */
export function flag(value: boolean): DefaultedOption<boolean> {
  return defaulted<boolean>(value, { nullable: true, check: mustBeBoolean });
}

function mustBeBoolean(value: unknown, field: string): void {
  if (typeof value !== "boolean") throw new AuthConfigError(field, "must be a boolean");
}

/** An option the caller must set; its `check` gets the value even when unset (else unset is "is required"). */
export function required<T>(spec: OptionSettings<T> = {}): OptionSpec<T, "required"> {
  return { ...spec, kind: "required" };
}

/** Options nested under one key, each with its own default. */
export function group<S extends OptionSchema>(schema: S): OptionGroup<S> {
  return { kind: "group", group: schema };
}

type ValueOf<E> = E extends OptionSpec<infer T> ? T : E extends OptionGroup<infer G> ? InputOf<G> : never;
type RequiredKey<S extends OptionSchema> = {
  [K in keyof S]: S[K] extends OptionSpec<unknown, "required"> ? K : never;
}[keyof S];

/** The type a caller passes for `S`: required options required, every other one optional, JSDoc kept. */
export type InputOf<S extends OptionSchema> = {
  -readonly [K in keyof S as K extends RequiredKey<S> ? K : never]-?: ValueOf<S[K]>;
} & {
  -readonly [K in keyof S as K extends RequiredKey<S> ? never : K]?: ValueOf<S[K]>;
};

/** `S` after `applySchema`: defaulted and required options set, groups filled. */
export type FilledOf<S extends OptionSchema> = {
  -readonly [K in keyof S]-?: S[K] extends OptionSpec<infer T, infer Kind>
    ? Kind extends "optional"
      ? T | undefined
      : T
    : S[K] extends OptionGroup<infer G>
      ? FilledOf<G>
      : never;
};

/** The closed-key shape of a schema, for `rejectUnknownOptions`. */
export function shapeOf(schema: OptionSchema): OptionShape {
  const shape: Record<string, true | OptionShape> = {};
  for (const [key, entry] of Object.entries(schema)) {
    if (entry.kind === "group") shape[key] = shapeOf(entry.group);
    else if (entry.fields) shape[key] = shapeOf(entry.fields);
    else if (entry.each) shape[key] = { [EACH]: shapeOf(entry.each) };
    else if (entry.names) shape[key] = Object.fromEntries(entry.names.map((name) => [name, true as const]));
    else shape[key] = true;
  }
  return shape;
}

function fill(schema: OptionSchema, value: Record<string, unknown>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...value };
  for (const [key, entry] of Object.entries(schema)) {
    const field = path === "" ? key : `${path}.${key}`;
    const given = value[key];
    if (entry.kind === "group") {
      // A group that is not an object is read as empty, as `options.session?.expiresIn` always did.
      out[key] = fill(
        entry.group,
        given !== null && typeof given === "object" ? (given as Record<string, unknown>) : {},
        field,
      );
      continue;
    }
    // `null` is "unset" for an option with a default (unless `nullable`); for an optional one it is a value.
    const unset = given === undefined || (given === null && entry.kind === "default" && !entry.nullable);
    const v = unset && entry.kind === "default" ? entry.default : given;
    if (v === undefined && entry.kind === "required" && !entry.check) throw new AuthConfigError(field, "is required");
    if (v !== undefined || entry.kind === "required") entry.check?.(v, field);
    out[key] = v;
  }
  return out;
}

/**
 * Checks `value` against `schema` (keys closed, each option's `check`) and fills the defaults. `path` prefixes
 * the field names of errors (`"apiKeys"` gives `apiKeys.header`); `extra` adds keys another layer accepts.
 *
 * @example
 * const o = applySchema(AUDIT_LOG_SCHEMA, { retention: "30d" }, "auditLog");
 */
export function applySchema<S extends OptionSchema>(
  schema: S,
  value: InputOf<S> | undefined,
  path: string,
  extra: OptionShape = {},
): FilledOf<S> {
  if (value === null || typeof value !== "object")
    throw new AuthConfigError(
      path === "" ? "options" : path,
      path === "" ? "must be an object" : "options must be an object",
    );
  rejectUnknownOptions(value, { ...shapeOf(schema), ...extra }, path);
  return fill(schema, value as Record<string, unknown>, path) as FilledOf<S>;
}
