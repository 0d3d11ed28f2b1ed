import { AuthConfigError } from "../errors/errors.ts";
import { oauth2, oidc, type ClientCredentials, type OAuth2Provider, type OidcProvider } from "./providers.ts";

const str = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null);

/**
 * Google (OpenID Connect, issuer `https://accounts.google.com`). Its `email_verified` claim is trusted.
 *
 * @example
 * google({ clientId: process.env.GOOGLE_CLIENT_ID!, clientSecret: process.env.GOOGLE_CLIENT_SECRET! });
 */
export function google(options: ClientCredentials): OidcProvider {
  return oidc({ ...options, id: "google", name: "Google", issuer: "https://accounts.google.com" });
}

/**
 * GitLab (OpenID Connect; `issuer` for a self-managed instance, default `https://gitlab.com`).
 *
 * @example
 * gitlab({ clientId, clientSecret, issuer: "https://gitlab.example.com" });
 */
export function gitlab(options: ClientCredentials & { issuer?: string }): OidcProvider {
  return oidc({ ...options, id: "gitlab", name: "GitLab", issuer: options?.issuer ?? "https://gitlab.com" });
}

/**
 * Apple (OpenID Connect, issuer `https://appleid.apple.com`). Apple POSTs its answer to the callback
 * (`form_post`) when asked for the name or email. `clientSecret` is the ES256 JWT you sign with your Apple key
 * (it lives at most six months).
 *
 * @example
 * apple({ clientId: "com.example.web", clientSecret: appleClientSecretJwt });
 */
export function apple(options: ClientCredentials): OidcProvider {
  return {
    ...oidc({
      ...options,
      id: "apple",
      name: "Apple",
      issuer: "https://appleid.apple.com",
      responseMode: "form_post",
    }),
    scopes: ["openid", "email", "name", ...(options?.scopes ?? [])].filter((s, i, all) => all.indexOf(s) === i),
  };
}

/**
 * Microsoft Entra ID (OpenID Connect) for one tenant: `tenant` is the directory (tenant) id, or `consumers` for
 * personal Microsoft accounts. Entra's `email` claim is not verified by Microsoft (the "nOAuth" class): it counts
 * as verified only with the `xms_edov` optional claim set to true, so by default a Microsoft email never links.
 *
 * @example
 * microsoft({ clientId, clientSecret, tenant: "8eaef023-2b34-4da1-9baa-8bc8c9d6a490" });
 */
export function microsoft(options: ClientCredentials & { tenant: string }): OidcProvider {
  const tenant = options?.tenant;
  if (typeof tenant !== "string" || !/^([0-9a-f-]{36}|consumers)$/i.test(tenant))
    throw new AuthConfigError(
      "microsoft.tenant",
      "must be your directory (tenant) id or 'consumers' (multi-tenant 'common' and 'organizations' have no fixed issuer to check)",
    );
  const issuer =
    tenant === "consumers"
      ? "https://login.microsoftonline.com/9188040d-6c67-4c5b-b112-36a304b66dad/v2.0"
      : `https://login.microsoftonline.com/${tenant.toLowerCase()}/v2.0`;
  return {
    ...oidc({ ...options, id: "microsoft", name: "Microsoft", issuer }),
    emailVerified: (claims) => claims.xms_edov === true || claims.xms_edov === "1" || claims.xms_edov === "true",
  };
}

/** Endpoint overrides of a plain-OAuth preset (GitHub Enterprise Server, a regional API host, tests). */
export interface OAuth2Endpoints {
  authorizationUrl?: string;
  tokenUrl?: string;
  /** The API root the preset reads the user from (GitHub: `https://api.github.com`). */
  apiUrl?: string;
}

interface GitHubEmail {
  email?: unknown;
  primary?: unknown;
  verified?: unknown;
}

/**
 * GitHub (plain OAuth 2.0). The email is the primary address of `/user/emails`, verified only when GitHub says so;
 * the subject is the numeric user id (logins can be renamed).
 *
 * @example
 * github({ clientId, clientSecret });
 */
export function github(options: ClientCredentials & { endpoints?: OAuth2Endpoints }): OAuth2Provider {
  const api = options?.endpoints?.apiUrl ?? "https://api.github.com";
  return oauth2({
    ...options,
    id: "github",
    name: "GitHub",
    authorizationUrl: options?.endpoints?.authorizationUrl ?? "https://github.com/login/oauth/authorize",
    tokenUrl: options?.endpoints?.tokenUrl ?? "https://github.com/login/oauth/access_token",
    userInfoUrl: `${api}/user`,
    scopes: ["read:user", "user:email", ...(options?.scopes ?? [])],
    async mapProfile(profile, context) {
      const emails = await context.fetchJson(`${api}/user/emails`);
      const primary = Array.isArray(emails)
        ? (emails as GitHubEmail[]).find((e) => e.primary === true && typeof e.email === "string")
        : undefined;
      return {
        id: String(profile.id),
        email: primary ? (primary.email as string) : null,
        emailVerified: primary?.verified === true,
        name: str(profile.name) ?? str(profile.login),
        image: str(profile.avatar_url),
      };
    },
  });
}

/**
 * Discord (plain OAuth 2.0): `/users/@me` with its `verified` flag for the email.
 *
 * @example
 * discord({ clientId, clientSecret });
 */
export function discord(options: ClientCredentials & { endpoints?: OAuth2Endpoints }): OAuth2Provider {
  const api = options?.endpoints?.apiUrl ?? "https://discord.com/api";
  return oauth2({
    ...options,
    id: "discord",
    name: "Discord",
    authorizationUrl: options?.endpoints?.authorizationUrl ?? "https://discord.com/oauth2/authorize",
    tokenUrl: options?.endpoints?.tokenUrl ?? "https://discord.com/api/oauth2/token",
    userInfoUrl: `${api}/users/@me`,
    scopes: ["identify", "email", ...(options?.scopes ?? [])],
    mapProfile(profile) {
      const id = String(profile.id);
      const avatar = str(profile.avatar);
      return {
        id,
        email: str(profile.email),
        emailVerified: profile.verified === true,
        name: str(profile.global_name) ?? str(profile.username),
        image: avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : null,
      };
    },
  });
}
