import { ProtocolError, type GrantedTokens } from "./protocol-shapes.ts";
import type { OAuth2Provider, OAuthProfile } from "./providers.ts";

/** The person signing in with a plain OAuth 2.0 provider: its user API's answer, mapped by `mapProfile`. */
export async function userApiProfile(provider: OAuth2Provider, tokens: GrantedTokens): Promise<OAuthProfile> {
  const fetchJson = async (url: string): Promise<unknown> => {
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${tokens.accessToken}`,
        accept: "application/json",
        "user-agent": "latchkey",
      },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider's user API refused the request");
    return response.json();
  };
  try {
    const raw = await fetchJson(provider.userInfoUrl);
    if (raw === null || typeof raw !== "object" || Array.isArray(raw))
      throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider's user API answered no object");
    const profile = await provider.mapProfile(raw as Record<string, unknown>, {
      accessToken: tokens.accessToken,
      fetchJson,
    });
    if (typeof profile?.id !== "string" || profile.id === "" || profile.id === "undefined")
      throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider's profile has no id");
    return profile;
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw new ProtocolError("OAUTH_PROVIDER_ERROR", "The provider's user API could not be read", { cause: error });
  }
}
