import { AuthError } from "../errors/errors.ts";
import type { SignInOutcome } from "../session/sign-in-gate.ts";

/**
 * @example
 * const input: StartSocialInput = { provider: "github", callbackURL: "/dashboard", errorCallbackURL: "/sign-in" };
 */
export interface StartSocialInput {
  provider: string;
  /** Where the browser goes once signed in: a path on `baseUrl` or a URL on a trusted origin. Default `baseUrl`. */
  callbackURL?: string | null;
  /** Where a failed or cancelled flow ends, with `?error=<code>`. Default: the plugin's `errorCallbackURL`. */
  errorCallbackURL?: string | null;
  /** Where a sign-in that created the user goes instead of `callbackURL`. */
  newUserCallbackURL?: string | null;
  /** Scopes to ask for besides the provider's. */
  scopes?: string[] | null;
}

/**
 * A native app's sign-in with the ID token its provider SDK gave it (Sign in with Apple, Google Sign-In).
 *
 * @example
 * const input: IdTokenSignInInput = { provider: "google", idToken: { token: credential, nonce: rawNonce } };
 */
export interface IdTokenSignInInput {
  provider: string;
  idToken: {
    /** The ID token (a JWT signed by the provider). */
    token: string;
    /** The nonce the app gave the provider's SDK: the token's `nonce` claim must be exactly this. */
    nonce: string;
    /** The access token the SDK gave with it, kept (sealed) for `POST /get-access-token`. */
    accessToken?: string | null;
  };
}

/** A started flow: the provider URL to send the browser to, and the state the browser's cookie binds. */
export interface SocialStart {
  url: string;
  /** Goes into the signed state cookie (`stateCookieValue`); never shown to anyone else. */
  state: string;
}

/**
 * A finished flow: where to send the browser, and the session (null when the flow linked an account), or the
 * second step a two-factor user's sign-in needs first (`twoFactor()`).
 */
export interface SocialCallback {
  redirect: string;
  signIn: SignInOutcome | null;
  newUser: boolean;
}

/**
 * A flow that ended in failure: the browser goes to `redirect` (the error callback with `?error=<code>`). `code`
 * is the error code; nothing of the provider's text is kept.
 */
export class OAuthCallbackError extends AuthError {
  constructor(
    code: ConstructorParameters<typeof AuthError>[0],
    message: string,
    readonly redirect: string,
    options: { cause?: unknown } = {},
  ) {
    super(code, message, options);
  }
}

/** A linked account as the owner sees it (no tokens). */
export interface LinkedAccountView {
  id: string;
  providerId: string;
  /** The provider's subject; null for a password or an email-code account. */
  accountId: string | null;
  scopes: string[];
  createdAt: string;
  updatedAt: string;
}

/** What `POST /get-access-token` answers. */
export interface ProviderAccessToken {
  accessToken: string;
  accessTokenExpiresAt: string | null;
  scopes: string[];
  idToken: string | null;
}
