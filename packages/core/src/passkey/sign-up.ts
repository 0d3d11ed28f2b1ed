import { creationOptions, type PublicKeyCredentialCreationOptionsJSON } from "./webauthn/options.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { base64url, randomId } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import { inTransaction } from "../context/transaction.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import type { SignInResult } from "../session/session.ts";
import { SIGN_UP_PREFIX, type PasskeyCeremonies } from "./ceremony.ts";
import {
  challengeInvalid,
  displayNameOf,
  nameOf,
  registrationShape,
  userHandleOf,
  type PasskeyCeremony,
  type PasskeySignUpInput,
  type PasskeySignUpOptionsInput,
} from "./shapes.ts";

// Passkey-only accounts (`allowPasskeyOnlyAccounts`): the account is created by its first passkey.

/** 404 `NOT_FOUND` unless `allowPasskeyOnlyAccounts` is on (the routes are not registered then either). */
function assertSignUpAllowed(c: PasskeyCeremonies): void {
  if (!c.options.allowPasskeyOnlyAccounts)
    throw new AuthError("NOT_FOUND", "Sign-up with a passkey is not enabled (passkeys({ allowPasskeyOnlyAccounts }))");
}

/**
 * Options for signing up with a passkey (`allowPasskeyOnlyAccounts`): a new user id is chosen now and kept with
 * the challenge, with the email and name, so the verify creates exactly the account the authenticator was asked
 * for. A taken email is 422 `USER_ALREADY_EXISTS` before the authenticator makes anything (the password sign-up
 * answers the same: without `requireVerifiedForSignIn` a session is issued at once, so it could not hide it).
 */
export async function signUpOptions(
  c: PasskeyCeremonies,
  input: PasskeySignUpOptionsInput,
  meta: RequestMeta,
): Promise<PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>> {
  assertSignUpAllowed(c);
  const { ctx, options } = c;
  if (typeof input?.email !== "string") throw invalidField("email", "email must be an address");
  const email = normalizeEmail(input.email);
  const name = displayNameOf(input.name);
  if (await ctx.store.users.findByEmail(email)) {
    await emit(ctx, "SignUpFailed", { identifier: email, reason: "email-taken" }, meta);
    throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
  }
  const userId = randomId(ctx.random);
  const creation = creationOptions({
    rp: { name: options.rpName, id: options.rpId },
    user: { id: userHandleOf(userId), name: email, displayName: name ?? email },
    challenge: base64url(ctx.random.bytes(32)),
    timeout: options.challengeMs,
    exclude: [],
    userVerification: options.userVerification,
  });
  return c.issue(SIGN_UP_PREFIX, null, creation, { userId, email, name });
}

/**
 * Signs up with a passkey: the challenge of `input.token` is spent, the response verified as for a registration,
 * then the user (email not verified, no password), the passkey and the first session are written in one
 * transaction, so a failure leaves none of them. The `beforeUserCreated` and `beforeSignIn` hooks run first
 * (path `sign-up-passkey`). An email taken meanwhile is 422 `USER_ALREADY_EXISTS` and writes nothing. Emits
 * `UserSignedUp`, `PasskeyAdded` and `UserSignedIn` (`method: "passkey"`). Nothing is emailed: the page asks for
 * the verification code or link it uses (docs/passkeys.md), and a proof that carries this session keeps the passkey.
 */
export async function signUp(
  c: PasskeyCeremonies,
  input: PasskeySignUpInput,
  meta: RequestMeta,
): Promise<SignInResult> {
  assertSignUpAllowed(c);
  const { ctx } = c;
  const response = registrationShape(input?.response);
  const passkeyName = input.name === undefined || input.name === null ? null : nameOf(input.name);
  const rememberMe = input.rememberMe ?? true;
  if (typeof rememberMe !== "boolean") throw invalidField("rememberMe", "rememberMe must be a boolean");
  const { payload, challenge } = await c.spend(input.token, SIGN_UP_PREFIX);
  const { userId, email } = payload;
  const name = typeof payload.name === "string" ? payload.name : null;
  if (typeof userId !== "string" || typeof email !== "string") throw challengeInvalid();
  const now = new Date(ctx.clock.now());
  const draft: UserRecord = {
    id: userId,
    email,
    emailVerified: false,
    name,
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: now,
    updatedAt: now,
    banned: false,
    banReason: null,
    banExpires: null,
  };
  const passkey = await c.verifiedPasskey(userId, response, challenge, passkeyName, now);
  // The app's hooks see the user before anything is written (a refusal leaves no row behind).
  const user = await ctx.hooks.beforeUserCreated(draft, "sign-up-passkey", meta);
  await ctx.hooks.beforeSignIn(user, "sign-up-passkey", meta);
  const created = await inTransaction(ctx, async (tx) => {
    const inserted = await tx.store.users.create(user, []);
    if (!inserted.ok) return null;
    const added = await (tx.store.passkeys ?? c.port).insert({ ...passkey, userId: inserted.value.id });
    // Thrown, so the user written above goes with it.
    if (added === "taken") throw new AuthError("PASSKEY_ALREADY_REGISTERED", "This passkey is registered already");
    if (added === "owner-gone")
      throw new AuthError("INVALID_CREDENTIALS", "The account no longer exists: sign in first");
    return { user: inserted.value, signIn: await tx.sessions.create(inserted.value, meta, { rememberMe }) };
  });
  if (!created) {
    await emit(ctx, "SignUpFailed", { identifier: email, reason: "email-taken" }, meta);
    throw new AuthError("USER_ALREADY_EXISTS", "An account with this email already exists");
  }
  const stored = created.user;
  await emit(ctx, "UserSignedUp", { userId: stored.id, email: stored.email }, meta, now);
  await emit(ctx, "PasskeyAdded", { userId: stored.id, passkeyId: passkey.id }, meta, now);
  await emit(ctx, "UserSignedIn", { userId: stored.id, method: "passkey" }, meta, now);
  return created.signIn;
}
