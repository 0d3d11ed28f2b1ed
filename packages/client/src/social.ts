import type { CallOperation, CallOptions, Input, Output, Result } from "./types.ts";

/** Call options of `signIn.social` (and `linkSocialAccount`): `redirect: false` only answers the provider's URL. */
export interface SocialCallOptions extends CallOptions {
  /** Send the browser to the provider's page once the URL is known (default true where `location` exists). */
  redirect?: boolean;
}

/** Sign-in by a provider (`oauth()` on the server), as a browser app calls it. */
export interface SocialMethods {
  signIn: {
    /**
     * Starts a social sign-in: asks `POST /sign-in/social` for the provider's URL and sends the browser there (the
     * provider sends it back to `callbackURL`, signed in). With `idToken` (a native app) it is a sign-in answer.
     *
     * @example
     * await auth.signIn.social({ provider: "google", callbackURL: "/dashboard", errorCallbackURL: "/sign-in" });
     */
    social(input: Input<"signInSocial">, options?: SocialCallOptions): Promise<Result<Output<"signInSocial">>>;
  };
  /**
   * Links another provider to the signed-in user (`POST /link-social`, fresh session) and sends the browser to the
   * provider's page; it comes back to `callbackURL`, or to `errorCallbackURL` with `?error=<code>`.
   */
  linkSocialAccount(input: Input<"linkSocial">, options?: SocialCallOptions): Promise<Result<Output<"linkSocial">>>;
}

/** Where the browser is sent: `location.assign`, when there is a `location` (never on a server). */
function navigate(url: string): void {
  const place = (globalThis as { location?: { assign(url: string): void } }).location;
  place?.assign(url);
}

function hasUrl(data: unknown): data is { url: string } {
  return typeof data === "object" && data !== null && typeof (data as { url?: unknown }).url === "string";
}

/** The social methods over a client's `call`: each follows the provider URL unless `redirect: false`. */
export function socialMethods(call: CallOperation): SocialMethods {
  const follow = async <T>(result: Promise<Result<T>>, options: SocialCallOptions | undefined) => {
    const answer = await result;
    if (answer.data !== null && options?.redirect !== false && hasUrl(answer.data)) navigate(answer.data.url);
    return answer;
  };
  const callOptions = (options?: SocialCallOptions): CallOptions | undefined => {
    if (!options) return undefined;
    const { redirect: _redirect, ...rest } = options;
    return rest;
  };
  return {
    signIn: { social: (input, options) => follow(call("signInSocial", input, callOptions(options)), options) },
    linkSocialAccount: (input, options) => follow(call("linkSocial", input, callOptions(options)), options),
  };
}
