import { sendSignal, startAuthentication, startRegistration, WebAuthnAbortService } from "@simplewebauthn/browser";
import type { CallOperation, CallOptions, LatchkeyError, Output, Result } from "./types.ts";

/** `passkey.register()`'s input: the name the user gives the new passkey. */
export interface PasskeyRegisterInput {
  name?: string;
}

/** `passkey.signIn()`'s input. */
export interface PasskeySignInInput {
  /**
   * Browser autofill (conditional mediation): the passkeys show in the suggestions of the page's
   * `<input autocomplete="username webauthn">`, and the promise resolves once the user picks one.
   */
  autoFill?: boolean;
  /** Offer only this user's passkeys (not with `autoFill`). */
  email?: string;
  rememberMe?: boolean;
}

/** `passkey.signUp()`'s input (`passkeys({ allowPasskeyOnlyAccounts: true })` on the server). */
export interface PasskeySignUpInput {
  email: string;
  /** The user's display name. */
  name?: string;
  /** The name of the new passkey ("MacBook"). */
  passkeyName?: string;
  rememberMe?: boolean;
}

/** Passkeys (`passkeys()` on the server) through the browser's WebAuthn API. */
export interface PasskeyMethods {
  passkey: {
    /**
     * Registers a passkey for the signed-in user (fresh session): options from `POST /passkey/register/options`,
     * the browser's `navigator.credentials.create()`, then `POST /passkey/register/verify`. A user who cancels, or a
     * browser without WebAuthn, answers the error `PASSKEY_CANCELLED` (status 0).
     *
     * @example
     * const { data, error } = await auth.passkey.register({ name: "MacBook" });
     */
    register(input?: PasskeyRegisterInput, options?: CallOptions): Promise<Result<Output<"passkeyRegisterVerify">>>;
    /**
     * Signs in with a passkey: options from `POST /passkey/authenticate/options`, the browser's
     * `navigator.credentials.get()` (with `autoFill`: conditional mediation), then `POST /passkey/authenticate/verify`.
     * `options.signal` aborts it, the pending browser request included (`PASSKEY_CANCELLED`): a page stops its
     * autofill request this way when the user signs in with a password or leaves the form. A passkey the server does
     * not know (`UNKNOWN_PASSKEY`: deleted) is signalled to the browser (`signalUnknownCredential`, where supported)
     * so that it stops offering it.
     *
     * @example
     * useEffect(() => {
     *   const stop = new AbortController(); // autofill on the sign-in form, until the page leaves
     *   void auth.passkey.signIn({ autoFill: true }, { signal: stop.signal });
     *   return () => stop.abort();
     * }, []);
     */
    signIn(input?: PasskeySignInInput, options?: CallOptions): Promise<Result<Output<"passkeyAuthenticateVerify">>>;
    /**
     * Creates an account with a passkey and an email, no password (`allowPasskeyOnlyAccounts`): options from
     * `POST /passkey/sign-up/options`, the browser's `navigator.credentials.create()`, then
     * `POST /passkey/sign-up/verify`, which signs in. Then ask for the email's verification code or link from the
     * signed-in page (docs/passkeys.md). A taken email answers `USER_ALREADY_EXISTS` before the browser is asked.
     * @example
     * const { data, error } = await auth.passkey.signUp({ email: "ada@example.com", name: "Ada" });
     */
    signUp(input: PasskeySignUpInput, options?: CallOptions): Promise<Result<Output<"passkeySignUpVerify">>>;
  };
}

/** What the browser's refusal (cancelled, timed out, no WebAuthn) becomes: an error like the server's. */
function cancelled(error: unknown): { data: null; error: LatchkeyError; response: null } {
  const name = error instanceof Error ? error.name : "";
  const message =
    name === "NotAllowedError" || name === "AbortError"
      ? "The passkey request was cancelled or timed out"
      : error instanceof Error
        ? error.message
        : "The passkey request failed";
  return { data: null, error: { code: "PASSKEY_CANCELLED", message, status: 0 }, response: null };
}

/**
 * Runs a WebAuthn ceremony that `signal` (the call's `CallOptions.signal`) can abort: the pending prompt or autofill
 * request is cancelled (a page that leaves the sign-in form, or signs in with a password, ends its autofill
 * request). An abort in the moment before the browser request starts (autofill first asks the browser whether it
 * offers autofill) is repeated until that request is cancelled too. A signal that aborts after the ceremony settled
 * cancels nothing (another ceremony may be running).
 */
async function ceremony<T>(run: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal?.aborted) throw new DOMException("The passkey request was aborted", "AbortError");
  let settled = false;
  let tries = 0;
  const cancel = () => {
    if (settled) return;
    WebAuthnAbortService.cancelCeremony();
    if (++tries < CANCEL_TRIES) setTimeout(cancel, CANCEL_RETRY_MS);
  };
  signal?.addEventListener("abort", cancel, { once: true });
  try {
    return await run();
  } finally {
    settled = true;
    signal?.removeEventListener("abort", cancel);
  }
}

/** How often, and how many times, an abort that came before the browser request started is repeated. */
const CANCEL_RETRY_MS = 20;
const CANCEL_TRIES = 100;

/**
 * Tells the browser that the server knows no such credential (a passkey deleted on the server, or by another
 * device), through the WebAuthn Signal API where the browser has it: its passkey manager may then stop offering
 * it. Best effort: a browser without the API, or one that refuses, changes nothing.
 */
async function signalUnknown(options: { rpId?: unknown }, credentialId: string): Promise<void> {
  if (typeof options.rpId !== "string") return;
  await sendSignal({ signalName: "unknownCredential", rpID: options.rpId, credentialID: credentialId }).catch(
    () => undefined,
  );
}

/** The browser's `navigator.credentials.create()` for an options answer: the credential, or the cancelled error. */
async function createCredential(
  optionsJSON: unknown,
  signal: AbortSignal | undefined,
): Promise<{ response: Awaited<ReturnType<typeof startRegistration>> } | { failed: ReturnType<typeof cancelled> }> {
  try {
    return { response: await ceremony(() => startRegistration({ optionsJSON: optionsJSON as never }), signal) };
  } catch (error) {
    return { failed: cancelled(error) };
  }
}

/** The challenge token of an options answer (clients in bearer mode get one; browser pages use the cookie). */
function tokenOf(data: { challengeToken?: string }): { challengeToken?: string } {
  return data.challengeToken === undefined ? {} : { challengeToken: data.challengeToken };
}

/** The passkey methods over a client's `call`. */
export function passkeyMethods(call: CallOperation): PasskeyMethods {
  return {
    passkey: {
      async register(input = {}, options) {
        const started = await call("passkeyRegisterOptions", {}, options);
        if (started.error) return started;
        const made = await createCredential(started.data.options, options?.signal);
        if ("failed" in made) return made.failed;
        const { response } = made;
        const body = { response, ...tokenOf(started.data), ...(input.name === undefined ? {} : { name: input.name }) };
        return call("passkeyRegisterVerify", body as never, options);
      },
      async signIn(input = {}, options) {
        const request = input.email === undefined || input.autoFill ? {} : { email: input.email };
        const started = await call("passkeyAuthenticateOptions", request, options);
        if (started.error) return started;
        let response: Awaited<ReturnType<typeof startAuthentication>>;
        try {
          response = await ceremony(
            () =>
              startAuthentication({
                optionsJSON: started.data.options as never,
                useBrowserAutofill: input.autoFill === true,
              }),
            options?.signal,
          );
        } catch (error) {
          return cancelled(error);
        }
        const body = {
          response,
          ...tokenOf(started.data),
          ...(input.rememberMe === undefined ? {} : { rememberMe: input.rememberMe }),
        };
        const verified = await call("passkeyAuthenticateVerify", body as never, options);
        if (verified.error?.code === "UNKNOWN_PASSKEY")
          await signalUnknown(started.data.options as { rpId?: unknown }, response.id);
        return verified;
      },
      async signUp(input, options) {
        const request = { email: input.email, ...(input.name === undefined ? {} : { name: input.name }) };
        const started = await call("passkeySignUpOptions", request, options);
        if (started.error) return started;
        const made = await createCredential(started.data.options, options?.signal);
        if ("failed" in made) return made.failed;
        const body = {
          response: made.response,
          ...tokenOf(started.data),
          ...(input.passkeyName === undefined ? {} : { name: input.passkeyName }),
          ...(input.rememberMe === undefined ? {} : { rememberMe: input.rememberMe }),
        };
        return call("passkeySignUpVerify", body as never, options);
      },
    },
  };
}
