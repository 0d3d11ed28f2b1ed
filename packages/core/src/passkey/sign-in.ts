import { requestOptions, type PublicKeyCredentialRequestOptionsJSON } from "./webauthn/options.ts";
import { WebAuthnFailure } from "./webauthn/cose.ts";
import { verifyAssertion, type VerifiedAssertion } from "./webauthn/verify.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { base64url, constantTimeEqual, fromBase64url } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import { inTransaction } from "../context/transaction.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { PasskeyRecord } from "../ports/records.ts";
import { accountLockKey } from "../rate-limit/rate-limit.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import { SIGN_IN_PREFIX, type PasskeyCeremonies } from "./ceremony.ts";
import {
  assertionShape,
  descriptorOf,
  invalidResponse,
  unknownPasskey,
  userHandleOf,
  type PasskeyCeremony,
  type PasskeySignInInput,
} from "./shapes.ts";

// Signing in with a passkey: a discoverable or an email-scoped ceremony (browser autofill included).

/**
 * Options for a passkey sign-in. Without `email`: an empty `allowCredentials` (the browser offers every passkey
 * of this site: a discoverable sign-in, or autofill with conditional mediation). With it: that user's passkeys
 * (none for an unknown address, which answers like a user without passkeys).
 */
export async function authenticationOptions(
  c: PasskeyCeremonies,
  input: {
    email?: string | null;
  },
): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
  const { ctx, options } = c;
  let allow: PasskeyRecord[] = [];
  const email = input?.email;
  if (email !== undefined && email !== null) {
    if (typeof email !== "string" || email.length > 320) throw invalidField("email", "email must be an address");
    const user = await ctx.store.users.findByEmail(normalizeEmail(email));
    if (user) allow = await c.port.listByUser(user.id);
  }
  const request = requestOptions({
    rpId: options.rpId,
    challenge: base64url(ctx.random.bytes(32)),
    timeout: options.challengeMs,
    allow: allow.map(descriptorOf),
    userVerification: options.userVerification,
  });
  return c.issue(SIGN_IN_PREFIX, null, request);
}

/**
 * Signs in with a passkey: the challenge of `input.token` is spent first, then the credential is found by id, its
 * owner must match the response's user handle, and the assertion is verified (origin, RP ID hash, user presence,
 * user verification as configured, signature). The signature counter must advance (when either counter is
 * non-zero): else 401 `PASSKEY_COUNTER_REGRESSION` and `PasskeyCounterRegression`. The account's lockout, the
 * `beforeSignIn` hook and `requireVerifiedForSignIn` apply as to every sign-in. A response with user verification
 * is both factors: it skips the second step; without it (`userVerification: "preferred"`) it goes through the
 * sign-in gate like a password.
 */
export async function signIn(
  c: PasskeyCeremonies,
  input: PasskeySignInInput,
  meta: RequestMeta,
): Promise<SignInOutcome> {
  const { ctx, options } = c;
  const response = assertionShape(input?.response);
  const rememberMe = input.rememberMe ?? true;
  if (typeof rememberMe !== "boolean") throw invalidField("rememberMe", "rememberMe must be a boolean");
  const { challenge } = await c.spend(input.token, SIGN_IN_PREFIX);
  const passkey = await c.port.findByCredentialId(response.id);
  const user = passkey && (await ctx.store.users.findById(passkey.userId));
  if (!passkey || !user) {
    await emit(ctx, "SignInFailed", { identifier: "passkey", reason: "unknown-passkey" }, meta);
    throw unknownPasskey();
  }
  const identifier = accountLockKey(user, "");
  const handle = response.response.userHandle;
  if (handle !== undefined && !constantTimeEqual(handle, userHandleOf(user.id))) {
    await emit(ctx, "SignInFailed", { identifier, reason: "passkey-user-handle" }, meta);
    throw invalidResponse("user-handle");
  }
  await ctx.lockout.assertNotLocked(identifier);
  const publicKey = fromBase64url(passkey.publicKey);
  if (publicKey === null) throw new AuthError("INTERNAL_ERROR", "A stored passkey cannot be read");
  let info: VerifiedAssertion;
  try {
    // The counter is checked below, against the stored one, with an error and an event of its own.
    info = await verifyAssertion(response, publicKey, {
      challenge,
      origins: c.origins,
      rpId: options.rpId,
      requireUserVerification: options.userVerification === "required",
    });
  } catch (error) {
    if (!(error instanceof WebAuthnFailure)) throw error;
    await emit(ctx, "SignInFailed", { identifier, reason: "invalid-passkey-response" }, meta);
    throw invalidResponse(error.reason);
  }
  const stored = passkey.counter;
  const received = info.newCounter;
  if ((stored > 0 || received > 0) && received <= stored) await regression(c, passkey, received, meta);
  if (ctx.config.emailVerification.requireVerifiedForSignIn && !user.emailVerified)
    throw new AuthError("EMAIL_NOT_VERIFIED", "Verify your email address before signing in");
  await ctx.hooks.beforeSignIn(user, "sign-in-passkey", meta);
  const at = new Date(ctx.clock.now());
  // User verification proves the person as well as the device: both factors, no second step.
  const attempt = { method: "passkey" as const, rememberMe, bothFactors: info.userVerified };
  const outcome = await inTransaction(ctx, async (tx) => {
    // Compare-and-set: of two sign-ins that read the same counter, one advances it (a clone is refused).
    const port = tx.store.passkeys ?? c.port;
    if (!(await port.recordUse(passkey.id, stored, received, info.backedUp, at))) {
      if (!(await port.findByCredentialId(passkey.credentialId))) throw unknownPasskey();
      throw new AuthError("PASSKEY_COUNTER_REGRESSION", "This passkey was used by another sign-in at the same time");
    }
    return signInOrChallenge(tx, user, meta, attempt);
  });
  if (!isChallenge(outcome)) await emit(ctx, "UserSignedIn", { userId: user.id, method: "passkey" }, meta, at);
  return outcome;
}

async function regression(
  c: PasskeyCeremonies,
  passkey: PasskeyRecord,
  received: number,
  meta: RequestMeta,
): Promise<never> {
  const { ctx } = c;
  const { userId, id: passkeyId, counter: stored } = passkey;
  await emit(ctx, "PasskeyCounterRegression", { userId, passkeyId, stored, received }, meta);
  await emit(ctx, "SignInFailed", { identifier: accountLockKey({ id: userId }, ""), reason: "passkey-counter" }, meta);
  throw new AuthError(
    "PASSKEY_COUNTER_REGRESSION",
    "This passkey's signature counter went backwards: it may have been copied. Sign in another way",
  );
}
