import { AuthConfigError } from "../errors/errors.ts";
import type { Duration } from "../config/duration.ts";
import { defaulted, group, optional, type FilledOf, type InputOf, type OptionGroup } from "../config/schema.ts";
import { isDuration, isPath } from "../config/checks.ts";
import { resolveLink } from "../config/links.ts";
import type { ResolvedConfig } from "../kernel/config.ts";
import type { Logger } from "../logger/logger.ts";
import { PASSWORD_POLICY_SCHEMA } from "../password/options.ts";
import { withCheckContext } from "../password/policy.ts";

/** `createAuth({ emailPassword })`: usernames, the password policy and the reset link. */
export const EMAIL_PASSWORD_SCHEMA = {
  /** lets `PATCH /user` change `username` (else 403 `USERNAME_CHANGE_DISABLED`); `auth.api.updateUser` always may */
  allowUsernameChange: defaulted<boolean>(false),
  /** interactive sign-up only; `auth.api.createUser` keeps it optional */
  requireUsername: defaulted<boolean>(false),
  /**
   * old name of `passwordPolicy.minLength`, still accepted (setting a length under both names is an error)
   * @defaultValue `8`
   */
  minPasswordLength: optional<number>(),
  /**
   * old name of `passwordPolicy.maxLength`, still accepted (setting a length under both names is an error)
   * @defaultValue `128`
   */
  maxPasswordLength: optional<number>(),
  // Typed so the emitted .d.ts keeps the policy options' JSDoc (see auth/options.ts).
  passwordPolicy: group(PASSWORD_POLICY_SCHEMA) as OptionGroup<typeof PASSWORD_POLICY_SCHEMA>,
  passwordReset: group({
    /** reset-link lifetime */
    expiresIn: defaulted<Duration>("1h", { check: isDuration }),
    /** the link is `baseUrl + callbackPath + ?token=` */
    callbackPath: defaulted<string>("/reset-password", { check: isPath }),
    /** absolute URL on another origin (same origin: use `callbackPath`) */
    callbackUrlOverride: optional<string>(),
  }),
};

type Raw = InputOf<typeof EMAIL_PASSWORD_SCHEMA> | undefined;
type Filled = FilledOf<typeof EMAIL_PASSWORD_SCHEMA>;

/** The password lengths under their new or old names (setting one under both is ambiguous, so refused). */
function resolvePasswordLengths(raw: Raw, o: Filled) {
  const policy = raw?.passwordPolicy;
  for (const [name, old] of [
    ["minLength", "minPasswordLength"],
    ["maxLength", "maxPasswordLength"],
  ] as const) {
    if (raw?.[old] !== undefined && policy?.[name] !== undefined)
      throw new AuthConfigError(
        `emailPassword.passwordPolicy.${name}`,
        `and emailPassword.${old} are the same option: set one`,
      );
  }
  const minField =
    policy?.minLength !== undefined ? "emailPassword.passwordPolicy.minLength" : "emailPassword.minPasswordLength";
  const maxField =
    policy?.maxLength !== undefined ? "emailPassword.passwordPolicy.maxLength" : "emailPassword.maxPasswordLength";
  const minPasswordLength = policy?.minLength ?? o.minPasswordLength ?? o.passwordPolicy.minLength;
  const maxPasswordLength = policy?.maxLength ?? o.maxPasswordLength ?? o.passwordPolicy.maxLength;
  if (!Number.isInteger(minPasswordLength) || minPasswordLength < 1)
    throw new AuthConfigError(minField, "must be a positive integer");
  if (!Number.isInteger(maxPasswordLength) || maxPasswordLength < minPasswordLength || maxPasswordLength > 1024)
    throw new AuthConfigError(maxField, "must be an integer between the minimum length and 1024");
  return { minPasswordLength, maxPasswordLength };
}

/** The reset link alone (`resolveConfig` checks it with the other links, before the rest of this group). */
export function resolvePasswordResetLink(o: Filled, baseOrigin: string) {
  return resolveLink(o.passwordReset, "emailPassword.passwordReset", baseOrigin);
}

/**
 * The group resolved: `raw` is what the caller passed (to tell the old length names from the new), `logger` the
 * auth's, bound into the password check.
 */
export function resolveEmailPassword(
  raw: Raw,
  o: Filled,
  passwordReset: ResolvedConfig["emailPassword"]["passwordReset"],
  logger: Logger,
): ResolvedConfig["emailPassword"] {
  return {
    allowUsernameChange: o.allowUsernameChange,
    requireUsername: o.requireUsername,
    ...resolvePasswordLengths(raw, o),
    // Bound to the auth's logger here, so every service that runs it hands the check the same `logger`.
    passwordCheck: withCheckContext(o.passwordPolicy.check ?? null, logger),
    passwordReset,
  };
}
