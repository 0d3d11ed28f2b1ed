import { parseDuration, type Duration } from "../config/duration.ts";
import { defaulted, optional, type FilledOf } from "../config/schema.ts";
import { isDuration, isPath } from "../config/checks.ts";
import { resolveLink } from "../config/links.ts";
import type { ResolvedConfig } from "../kernel/config.ts";

/** `createAuth({ emailVerification })`: the verification link, and what an unverified account may do. */
export const EMAIL_VERIFICATION_SCHEMA = {
  /** lifetime of a verification link token */
  expiresIn: defaulted<Duration>("1d", { check: isDuration }),
  /**
   * the link is `baseUrl + callbackPath + ?token=&email=` (a page of your app that POSTs to `/auth/verify-email`)
   */
  callbackPath: defaulted<string>("/verify-email", { check: isPath }),
  /**
   * sign-up then issues no session and answers `{success: true}` for new and existing emails; unverified password
   * sign-in is 403 `EMAIL_NOT_VERIFIED`
   */
  requireVerifiedForSignIn: defaulted<boolean>(false),
  /** absolute URL on another origin (same origin: use `callbackPath`) */
  callbackUrlOverride: optional<string>(),
  /**
   * the sweep (`auth.api.sweep()`) deletes users still unverified this long after sign-up, with every row of theirs
   * (`AccountDeleted` is emitted)
   * @defaultValue none (kept)
   */
  deleteUnverifiedAfter: optional<Duration>({ check: isDuration }),
};

export function resolveEmailVerification(
  o: FilledOf<typeof EMAIL_VERIFICATION_SCHEMA>,
  baseOrigin: string,
): ResolvedConfig["emailVerification"] {
  return {
    ...resolveLink(o, "emailVerification", baseOrigin),
    requireVerifiedForSignIn: o.requireVerifiedForSignIn,
    deleteUnverifiedAfterMs:
      o.deleteUnverifiedAfter === undefined
        ? null
        : parseDuration(o.deleteUnverifiedAfter, "emailVerification.deleteUnverifiedAfter"),
  };
}
