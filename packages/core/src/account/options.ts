import { AuthConfigError } from "../errors/errors.ts";
import type { Duration } from "../config/duration.ts";
import { defaulted, optional, type FilledOf } from "../config/schema.ts";
import { isDuration, isPath } from "../config/checks.ts";
import { resolveLink } from "../config/links.ts";
import type { ResolvedConfig } from "../kernel/config.ts";

/** `createAuth({ deleteAccount })`: the emailed link that confirms an account's deletion. */
export const DELETE_ACCOUNT_SCHEMA = {
  /** lifetime of a deletion token */
  expiresIn: defaulted<Duration>("1h", { check: isDuration }),
  /**
   * the link is `baseUrl + callbackPath + ?token=` (a page of your app that POSTs to `/auth/delete-account/confirm`)
   */
  callbackPath: defaulted<string>("/delete-account/confirm", { check: isPath }),
  /** subject of the deletion email; may use `{{appName}}` and the template variables */
  subject: defaulted<string>("Confirm account deletion", {
    check: (v, field) => {
      if (typeof v !== "string" || v.length === 0) throw new AuthConfigError(field, "must be a non-empty string");
    },
  }),
  /** absolute URL on another origin */
  callbackUrlOverride: optional<string>(),
};

export function resolveDeleteAccount(
  o: FilledOf<typeof DELETE_ACCOUNT_SCHEMA>,
  baseOrigin: string,
): ResolvedConfig["deleteAccount"] {
  return { ...resolveLink(o, "deleteAccount", baseOrigin), subject: o.subject };
}
