import { AuthConfigError } from "../errors/errors.ts";
import { applySchema, defaulted, flag, optional, required, shapeOf, type InputOf } from "../config/schema.ts";
import type { OAuthProvider } from "./providers.ts";

/**
 * `oauth()` options with defaults filled.
 *
 * @example
 * const { providers, trustedProviders } = resolveOAuthOptions({ providers: [github({ clientId, clientSecret })] });
 */
export interface ResolvedOAuthOptions {
  providers: ReadonlyMap<string, OAuthProvider>;
  /** Providers whose verified email may link a first sign-in to an existing user of that email. */
  trustedProviders: ReadonlySet<string>;
  allowSignUp: boolean;
  /** Where a failed flow ends when the request named no `errorCallbackURL`; null: `baseUrl`. */
  errorCallbackURL: string | null;
}

function checkProviders(value: unknown, field: string): void {
  if (!Array.isArray(value) || value.length === 0)
    throw new AuthConfigError(field, "must be a non-empty array of providers (google(), github(), oidc({...}), ...)");
  const seen = new Set<string>();
  value.forEach((provider, i) => {
    const kind = (provider as { kind?: unknown } | null)?.kind;
    if (kind !== "oidc" && kind !== "oauth2")
      throw new AuthConfigError(`${field}[${i}]`, "must be made by oidc(), oauth2() or a preset (google(), ...)");
    const id = (provider as OAuthProvider).id;
    if (seen.has(id)) throw new AuthConfigError(`${field}[${i}]`, `repeats the provider id "${id}"`);
    seen.add(id);
  });
}

/** The one definition of `oauth({...})`'s options: type, default, check, docs row (docs/options.md). */
export const OAUTH_SCHEMA = {
  /**
   * the providers: presets (`google()`, `github()`, `microsoft()`, `apple()`, `discord()`, `gitlab()`), any OpenID
   * Connect issuer (`oidc({...})`) or plain OAuth 2.0 (`oauth2({...})`); ids must differ
   */
  providers: required<OAuthProvider[]>({ check: checkProviders }),
  /** how a first social sign-in meets an existing user of the same email */
  accountLinking: defaulted<{ trustedProviders?: string[] }>(
    {},
    {
      fields: {
        /**
         * provider ids whose verified email links a first sign-in to the existing user of that address (its
         * unverified password, sessions and keys are removed first, as after any proof of the mailbox); any other
         * provider gets 409 `ACCOUNT_EXISTS`, and the user links it from settings (`POST /link-social`)
         * @defaultValue none
         */
        trustedProviders: optional<string[]>(),
      },
      check: (value, field) => {
        if (value === null || typeof value !== "object") throw new AuthConfigError(field, "must be an object");
        const trusted = value.trustedProviders;
        if (trusted !== undefined && (!Array.isArray(trusted) || trusted.some((id) => typeof id !== "string")))
          throw new AuthConfigError(`${field}.trustedProviders`, "must be an array of provider ids");
      },
    },
  ),
  /** `false`: a social sign-in of someone without an account fails (`OAUTH_SIGN_UP_DISABLED`) instead of creating one */
  allowSignUp: flag(true),
  /**
   * where a failed flow ends (with `?error=<code>`) when `POST /sign-in/social` named no `errorCallbackURL`: a path
   * on `baseUrl` or a URL on a trusted origin
   * @defaultValue `baseUrl`
   */
  errorCallbackURL: optional<string>({
    check: (value, field) => {
      if (typeof value !== "string" || value === "") throw new AuthConfigError(field, "must be a path or a URL");
    },
  }),
};

/**
 * `oauth({...})` options.
 *
 * @example
 * const options: OAuthOptions = { providers: [google({ clientId, clientSecret })], accountLinking: { trustedProviders: ["google"] } };
 */
export type OAuthOptions = InputOf<typeof OAUTH_SCHEMA>;

/** Every key `oauth({...})` accepts (from `OAUTH_SCHEMA`). */
export const OAUTH_OPTION_SHAPE = shapeOf(OAUTH_SCHEMA);

/**
 * Validates `oauth()` options and fills the defaults. Throws `AuthConfigError` naming the field.
 *
 * @example
 * resolveOAuthOptions({ providers: [github({ clientId, clientSecret })] }).allowSignUp; // true
 */
export function resolveOAuthOptions(options: OAuthOptions): ResolvedOAuthOptions {
  const o = applySchema(OAUTH_SCHEMA, options, "oauth");
  const providers = new Map(o.providers.map((p) => [p.id, p] as const));
  const trusted = o.accountLinking.trustedProviders ?? [];
  for (const id of trusted)
    if (!providers.has(id))
      throw new AuthConfigError("oauth.accountLinking.trustedProviders", `names "${id}", which is not a provider`);
  return {
    providers,
    trustedProviders: new Set(trusted),
    allowSignUp: o.allowSignUp,
    errorCallbackURL: o.errorCallbackURL ?? null,
  };
}
