import {
  creationOptions,
  requestOptions,
  type AuthenticatorTransport,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "./webauthn/options.ts";
import { WebAuthnFailure } from "./webauthn/cose.ts";
import { verifyAssertion, verifyRegistration, type VerifiedAssertion } from "./webauthn/verify.ts";
import { originOf } from "../config/origin.ts";
import { AuthError, invalidField } from "../errors/errors.ts";
import { base64url, constantTimeEqual, fromBase64url, randomId, utf8 } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import { inTransaction } from "../context/transaction.ts";
import { normalizeEmail } from "../kernel/validation.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { PasskeyRecord, UserRecord, VerificationRecord } from "../ports/records.ts";
import type { SignInResult } from "../session/session.ts";
import type { PasskeyStore } from "../ports/store.ts";
import { accountLockKey } from "../rate-limit/rate-limit.ts";
import { companionCookie, type CookieDescriptor } from "../session/session.ts";
import { isChallenge, signInOrChallenge, type SignInOutcome } from "../session/sign-in-gate.ts";
import type { ResolvedPasskeyOptions } from "./options.ts";

/** The verification-row identifier prefixes of issued challenges (one row each, random suffix). */
const REGISTER_PREFIX = "passkey-register:";
const SIGN_IN_PREFIX = "passkey-sign-in:";
const SIGN_UP_PREFIX = "passkey-sign-up:";

/** Longest accepted base64url fields: a credential id (1023 bytes at most), client data, attestation, signature. */
const MAX_ID = 1400;
const MAX_FIELD = 32_768;
/** Longest passkey name. */
const MAX_NAME = 64;

/** Transports a browser may report (WebAuthn Level 3); anything else is dropped. */
const TRANSPORTS = new Set<string>(["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]);

/**
 * A started ceremony: the options for `navigator.credentials.create()` / `.get()`, and the single-use challenge
 * token that binds it to the client that asked (its HttpOnly cookie, or `challengeToken` for clients that keep
 * tokens themselves).
 */
export interface PasskeyCeremony<Options> {
  options: Options;
  /** The challenge's token: only its SHA-256 is stored; single-use; dies at `expiresAt`. */
  token: string;
  expiresAt: string;
  cookie: CookieDescriptor;
}

/** A passkey as its owner sees it (never the public key). */
export interface PasskeyView {
  id: string;
  name: string | null;
  /** The credential id (base64url), for the browser's `signalUnknownCredential` and the like. */
  credentialId: string;
  deviceType: "singleDevice" | "multiDevice";
  backedUp: boolean;
  transports: string[];
  aaguid: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/**
 * `POST /passkey/register/verify`: the browser's `navigator.credentials.create()` answer (JSON, as
 * `@simplewebauthn/browser` gives it) and the challenge token.
 */
export interface RegisterPasskeyInput {
  token: string;
  response: unknown;
  name?: string | null;
}

/** `POST /passkey/sign-up/options`: the new account's email and, optionally, its display name. */
export interface PasskeySignUpOptionsInput {
  email: string;
  name?: string | null;
}

/**
 * `POST /passkey/sign-up/verify`: the browser's `navigator.credentials.create()` answer to the sign-up options, the
 * challenge token, and optionally the passkey's name and `rememberMe`.
 */
export interface PasskeySignUpInput {
  token: string;
  response: unknown;
  name?: string | null;
  rememberMe?: boolean;
}

/** `POST /passkey/authenticate/verify`: the browser's `navigator.credentials.get()` answer and the challenge token. */
export interface PasskeySignInInput {
  token: string;
  response: unknown;
  /** False: a session cookie without Max-Age (ends with the browser) and the short session lifetime. Default true. */
  rememberMe?: boolean;
}

const challengeInvalid = () =>
  new AuthError(
    "PASSKEY_CHALLENGE_INVALID",
    "The passkey request expired, was already used or was started elsewhere: start again",
  );

const unknownPasskey = () => new AuthError("UNKNOWN_PASSKEY", "This passkey is not registered here");

const invalidResponse = (reason: string) =>
  new AuthError("INVALID_PASSKEY_RESPONSE", `The passkey response failed verification (${reason})`);

/** A base64url string of at most `max` characters, or a 400 naming `field`. */
function b64Field(value: unknown, field: string, max: number, optional = false): string | undefined {
  if (optional && (value === undefined || value === null)) return undefined;
  if (typeof value !== "string" || value.length === 0 || value.length > max || fromBase64url(value) === null)
    throw invalidField(field, `${field} must be base64url of at most ${max} characters`);
  return value;
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw invalidField(field, `${field} must be an object`);
  return value as Record<string, unknown>;
}

/** A registration answer (`PublicKeyCredential.toJSON()` of `navigator.credentials.create()`), shape-checked. */
interface RegistrationResponse {
  id: string;
  response: { clientDataJSON: string; attestationObject: string; transports: AuthenticatorTransport[] };
}

/** A sign-in answer (`PublicKeyCredential.toJSON()` of `navigator.credentials.get()`), shape-checked. */
interface AssertionResponse {
  id: string;
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle?: string };
}

/** The shape of a `PublicKeyCredential` JSON answer, checked before anything is decoded (sizes capped). */
function credentialShape(value: unknown): {
  id: string;
  inner: Record<string, unknown>;
  clientDataJSON: string;
} {
  const outer = record(value, "response");
  const id = b64Field(outer.id, "response.id", MAX_ID) as string;
  const rawId = b64Field(outer.rawId, "response.rawId", MAX_ID) as string;
  if (rawId !== id) throw invalidField("response.rawId", "response.rawId must equal response.id");
  if (outer.type !== "public-key") throw invalidField("response.type", 'response.type must be "public-key"');
  const inner = record(outer.response, "response.response");
  const clientDataJSON = b64Field(inner.clientDataJSON, "response.response.clientDataJSON", MAX_FIELD) as string;
  return { id, inner, clientDataJSON };
}

function registrationShape(value: unknown): RegistrationResponse {
  const { id, inner, clientDataJSON } = credentialShape(value);
  b64Field(inner.attestationObject, "response.response.attestationObject", MAX_FIELD);
  const transports = inner.transports;
  if (transports !== undefined && (!Array.isArray(transports) || transports.length > 16))
    throw invalidField("response.response.transports", "response.response.transports must be a short array");
  return {
    id,
    response: {
      clientDataJSON,
      attestationObject: inner.attestationObject as string,
      transports: ((transports ?? []) as unknown[]).filter(
        (t): t is AuthenticatorTransport => typeof t === "string" && TRANSPORTS.has(t),
      ),
    },
  };
}

function assertionShape(value: unknown): AssertionResponse {
  const { id, inner, clientDataJSON } = credentialShape(value);
  b64Field(inner.authenticatorData, "response.response.authenticatorData", MAX_FIELD);
  b64Field(inner.signature, "response.response.signature", MAX_FIELD);
  const userHandle = b64Field(inner.userHandle, "response.response.userHandle", 128, true);
  return {
    id,
    response: {
      clientDataJSON,
      authenticatorData: inner.authenticatorData as string,
      signature: inner.signature as string,
      ...(userHandle === undefined ? {} : { userHandle }),
    },
  };
}

/** A passkey's name: trimmed, 1 to 64 characters. */
function nameOf(value: unknown): string {
  if (typeof value !== "string" || value.trim() === "" || value.trim().length > MAX_NAME)
    throw invalidField("name", `name must be 1 to ${MAX_NAME} characters`);
  return value.trim();
}

/** A display name: trimmed, at most 256 characters (the user's `name`), or null. */
function displayNameOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.trim().length > 256)
    throw invalidField("name", "name must be a string of at most 256 characters");
  return value.trim() === "" ? null : value.trim();
}

/** A credential descriptor of a stored passkey, for `excludeCredentials` / `allowCredentials`. */
const descriptorOf = (p: PasskeyRecord) => ({
  id: p.credentialId,
  type: "public-key" as const,
  transports: p.transports.filter((t): t is AuthenticatorTransport => TRANSPORTS.has(t)),
});

/** The WebAuthn user handle of a user: their id's UTF-8 bytes (base64url in JSON). Never their email. */
function userHandleOf(userId: string): string {
  return base64url(utf8(userId));
}

function viewOf(p: PasskeyRecord): PasskeyView {
  return {
    id: p.id,
    name: p.name,
    credentialId: p.credentialId,
    deviceType: p.deviceType,
    backedUp: p.backedUp,
    transports: [...p.transports],
    aaguid: p.aaguid,
    createdAt: p.createdAt.toISOString(),
    lastUsedAt: p.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * Passkeys (WebAuthn): registration of discoverable credentials for a signed-in user, sign-in with them (a
 * discoverable or an email-scoped ceremony, browser autofill included), and their management. Every ceremony's
 * challenge is random, single-use, 5 minutes, stored as a verification row found only through the token the asking
 * client holds, and spent before the response is looked at: of two verifies of one challenge at most one goes on.
 *
 * @example
 * const { options, token } = await service.authenticationOptions({}, meta);
 * const outcome = await service.signIn({ token, response }, meta);
 */
export class PasskeyService {
  /** The origins responses may come from. */
  readonly origins: string[];

  constructor(
    private readonly ctx: AuthContext,
    readonly options: ResolvedPasskeyOptions,
    private readonly port: PasskeyStore,
  ) {
    const base = originOf(ctx.config.baseUrl);
    this.origins = options.origins ?? (base === null ? [] : [base]);
  }

  /** The challenge cookie's name: the session cookie's, `passkey` for `session`. */
  get challengeCookieName(): string {
    return this.ctx.config.cookies.name.replace(/session$/, "passkey");
  }

  /** A cookie that clears the challenge cookie (sent with every verify answer). */
  clearedCookie(): CookieDescriptor {
    return companionCookie(this.ctx.config, this.challengeCookieName, "", 0);
  }

  private async ceremony<Options extends { challenge: string }>(
    prefix: string,
    userId: string | null,
    options: Options,
    extra: Record<string, string | null> = {},
  ): Promise<PasskeyCeremony<Options>> {
    const { ctx } = this;
    const ttl = this.options.challengeMs;
    const identifier = `${prefix}${randomId(ctx.random)}`;
    const token = await ctx.secrets.issueToken(
      identifier,
      userId,
      ttl,
      JSON.stringify({ ...extra, challenge: options.challenge }),
    );
    const expiresAt = new Date(ctx.clock.now() + ttl).toISOString();
    const cookie = companionCookie(ctx.config, this.challengeCookieName, token, Math.floor(ttl / 1000));
    return { options, token, expiresAt, cookie };
  }

  /**
   * Spends the challenge row of `token` (of this ceremony's kind): unknown, expired, another kind or already spent
   * is 400 `PASSKEY_CHALLENGE_INVALID`. Spent before the response is verified, so a failed attempt burns it too.
   */
  private async spend(
    token: unknown,
    prefix: string,
  ): Promise<{ row: VerificationRecord; challenge: string; payload: Record<string, unknown> }> {
    const { ctx } = this;
    let row: VerificationRecord;
    try {
      row = await ctx.secrets.findToken(typeof token === "string" ? token : "", prefix);
    } catch (error) {
      if (error instanceof AuthError && error.code === "INVALID_TOKEN") throw challengeInvalid();
      throw error;
    }
    if (!(await ctx.store.verifications.consume(row.id))) throw challengeInvalid();
    try {
      const payload = JSON.parse(row.payload ?? "") as Record<string, unknown>;
      const { challenge } = payload;
      if (typeof challenge !== "string") throw challengeInvalid();
      return { row, challenge, payload };
    } catch {
      throw challengeInvalid();
    }
  }

  /**
   * Options for registering a new passkey of `user`: a discoverable credential (resident key required),
   * attestation `none`, the user's passkeys excluded, user verification as configured.
   */
  async registrationOptions(user: UserRecord): Promise<PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>> {
    const { ctx, options } = this;
    const existing = await this.port.listByUser(user.id);
    const creation = creationOptions({
      rp: { name: options.rpName, id: options.rpId },
      user: { id: userHandleOf(user.id), name: user.email, displayName: user.name ?? user.email },
      challenge: base64url(ctx.random.bytes(32)),
      timeout: options.challengeMs,
      exclude: existing.map(descriptorOf),
      userVerification: options.userVerification,
    });
    return this.ceremony(REGISTER_PREFIX, user.id, creation);
  }

  /**
   * Registers the passkey the browser created for `user` with the options of `input.token` (which must be this
   * user's): origin, RP ID hash, user presence, user verification (as configured), the attestation's own signature
   * when it has one. 409 `PASSKEY_ALREADY_REGISTERED` for a credential registered already. Emits `PasskeyAdded`.
   *
   * `sessionId` is the session the request was checked with (none for a trusted server call). For a user whose
   * email is not verified yet the passkey is written first and the session checked second: a first proof of the
   * mailbox that ended the session meanwhile also removes the user's passkeys, and one written after its removal
   * is taken back here (401 `INVALID_CREDENTIALS`), so the registrant never keeps a passkey the proof should have removed.
   */
  async register(
    user: UserRecord,
    input: RegisterPasskeyInput,
    meta: RequestMeta,
    sessionId: string | null = null,
  ): Promise<PasskeyView> {
    const { ctx } = this;
    const response = registrationShape(input?.response);
    const name = input.name === undefined || input.name === null ? null : nameOf(input.name);
    const { row, challenge } = await this.spend(input.token, REGISTER_PREFIX);
    if (row.userId !== user.id) throw challengeInvalid();
    const now = new Date(ctx.clock.now());
    const passkey = await this.verifiedPasskey(user.id, response, challenge, name, now);
    const inserted = await this.port.insert(passkey);
    if (inserted === "taken") throw new AuthError("PASSKEY_ALREADY_REGISTERED", "This passkey is registered already");
    if (inserted === "owner-gone")
      throw new AuthError("INVALID_CREDENTIALS", "The account no longer exists: sign in first");
    if (sessionId !== null && !user.emailVerified && !(await this.sessionHeld(user.id, sessionId))) {
      await this.port.delete(user.id, passkey.id, { evenLast: true });
      throw new AuthError("INVALID_CREDENTIALS", "The session ended while the passkey was registered: sign in again");
    }
    await emit(ctx, "PasskeyAdded", { userId: user.id, passkeyId: passkey.id }, meta, now);
    return viewOf(passkey);
  }

  /** Whether session `sessionId` of the user is still in the store (read from the store, never a cache). */
  private async sessionHeld(userId: string, sessionId: string): Promise<boolean> {
    return (await this.ctx.store.sessions.listByUser(userId)).some((s) => s.id === sessionId);
  }

  /**
   * Verifies a registration response against `challenge` (origin, RP ID hash, user presence, user verification as
   * configured, the attestation's own signature when it has one): the passkey row it makes for `userId`.
   */
  private async verifiedPasskey(
    userId: string,
    response: RegistrationResponse,
    challenge: string,
    name: string | null,
    now: Date,
  ): Promise<PasskeyRecord> {
    const { ctx, options } = this;
    let info: Awaited<ReturnType<typeof verifyRegistration>>;
    try {
      info = await verifyRegistration(response, {
        challenge,
        origins: this.origins,
        rpId: options.rpId,
        requireUserVerification: options.userVerification === "required",
      });
    } catch (error) {
      if (error instanceof WebAuthnFailure) throw invalidResponse(error.reason);
      throw error;
    }
    return {
      id: randomId(ctx.random),
      userId,
      credentialId: info.credentialId,
      publicKey: base64url(info.publicKey),
      counter: info.counter,
      transports: response.response.transports,
      deviceType: info.deviceType,
      backedUp: info.backedUp,
      aaguid: info.aaguid,
      name,
      createdAt: now,
      lastUsedAt: null,
    };
  }

  /** 404 `NOT_FOUND` unless `allowPasskeyOnlyAccounts` is on (the routes are not registered then either). */
  private assertSignUpAllowed(): void {
    if (!this.options.allowPasskeyOnlyAccounts)
      throw new AuthError(
        "NOT_FOUND",
        "Sign-up with a passkey is not enabled (passkeys({ allowPasskeyOnlyAccounts }))",
      );
  }

  /**
   * Options for signing up with a passkey (`allowPasskeyOnlyAccounts`): a new user id is chosen now and kept with
   * the challenge, with the email and name, so the verify creates exactly the account the authenticator was asked
   * for. A taken email is 422 `USER_ALREADY_EXISTS` before the authenticator makes anything (the password sign-up
   * answers the same: without `requireVerifiedForSignIn` a session is issued at once, so it could not hide it).
   */
  async signUpOptions(
    input: PasskeySignUpOptionsInput,
    meta: RequestMeta,
  ): Promise<PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>> {
    this.assertSignUpAllowed();
    const { ctx, options } = this;
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
    return this.ceremony(SIGN_UP_PREFIX, null, creation, { userId, email, name });
  }

  /**
   * Signs up with a passkey: the challenge of `input.token` is spent, the response verified as for a registration,
   * then the user (email not verified, no password), the passkey and the first session are written in one
   * transaction, so a failure leaves none of them. The `beforeUserCreated` and `beforeSignIn` hooks run first
   * (path `sign-up-passkey`). An email taken meanwhile is 422 `USER_ALREADY_EXISTS` and writes nothing. Emits
   * `UserSignedUp`, `PasskeyAdded` and `UserSignedIn` (`method: "passkey"`). Nothing is emailed: the page asks for
   * the verification code or link it uses (docs/passkeys.md), and a proof that carries this session keeps the passkey.
   */
  async signUp(input: PasskeySignUpInput, meta: RequestMeta): Promise<SignInResult> {
    this.assertSignUpAllowed();
    const { ctx } = this;
    const response = registrationShape(input?.response);
    const passkeyName = input.name === undefined || input.name === null ? null : nameOf(input.name);
    const rememberMe = input.rememberMe ?? true;
    if (typeof rememberMe !== "boolean") throw invalidField("rememberMe", "rememberMe must be a boolean");
    const { payload, challenge } = await this.spend(input.token, SIGN_UP_PREFIX);
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
    };
    const passkey = await this.verifiedPasskey(userId, response, challenge, passkeyName, now);
    // The app's hooks see the user before anything is written (a refusal leaves no row behind).
    const user = await ctx.hooks.beforeUserCreated(draft, "sign-up-passkey", meta);
    await ctx.hooks.beforeSignIn(user, "sign-up-passkey", meta);
    const created = await inTransaction(ctx, async (tx) => {
      const inserted = await tx.store.users.create(user, []);
      if (!inserted.ok) return null;
      const added = await (tx.store.passkeys ?? this.port).insert({ ...passkey, userId: inserted.value.id });
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

  /**
   * Options for a passkey sign-in. Without `email`: an empty `allowCredentials` (the browser offers every passkey
   * of this site: a discoverable sign-in, or autofill with conditional mediation). With it: that user's passkeys
   * (none for an unknown address, which answers like a user without passkeys).
   */
  async authenticationOptions(input: {
    email?: string | null;
  }): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
    const { ctx, options } = this;
    let allow: PasskeyRecord[] = [];
    const email = input?.email;
    if (email !== undefined && email !== null) {
      if (typeof email !== "string" || email.length > 320) throw invalidField("email", "email must be an address");
      const user = await ctx.store.users.findByEmail(normalizeEmail(email));
      if (user) allow = await this.port.listByUser(user.id);
    }
    const request = requestOptions({
      rpId: options.rpId,
      challenge: base64url(ctx.random.bytes(32)),
      timeout: options.challengeMs,
      allow: allow.map(descriptorOf),
      userVerification: options.userVerification,
    });
    return this.ceremony(SIGN_IN_PREFIX, null, request);
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
  async signIn(input: PasskeySignInInput, meta: RequestMeta): Promise<SignInOutcome> {
    const { ctx, options } = this;
    const response = assertionShape(input?.response);
    const rememberMe = input.rememberMe ?? true;
    if (typeof rememberMe !== "boolean") throw invalidField("rememberMe", "rememberMe must be a boolean");
    const { challenge } = await this.spend(input.token, SIGN_IN_PREFIX);
    const passkey = await this.port.findByCredentialId(response.id);
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
        origins: this.origins,
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
    if ((stored > 0 || received > 0) && received <= stored) await this.regression(passkey, received, meta);
    if (ctx.config.emailVerification.requireVerifiedForSignIn && !user.emailVerified)
      throw new AuthError("EMAIL_NOT_VERIFIED", "Verify your email address before signing in");
    await ctx.hooks.beforeSignIn(user, "sign-in-passkey", meta);
    const at = new Date(ctx.clock.now());
    // User verification proves the person as well as the device: both factors, no second step.
    const attempt = { method: "passkey" as const, rememberMe, bothFactors: info.userVerified };
    const outcome = await inTransaction(ctx, async (tx) => {
      // Compare-and-set: of two sign-ins that read the same counter, one advances it (a clone is refused).
      const port = tx.store.passkeys ?? this.port;
      if (!(await port.recordUse(passkey.id, stored, received, info.backedUp, at))) {
        if (!(await port.findByCredentialId(passkey.credentialId))) throw unknownPasskey();
        throw new AuthError("PASSKEY_COUNTER_REGRESSION", "This passkey was used by another sign-in at the same time");
      }
      return signInOrChallenge(tx, user, meta, attempt);
    });
    if (!isChallenge(outcome)) await emit(ctx, "UserSignedIn", { userId: user.id, method: "passkey" }, meta, at);
    return outcome;
  }

  private async regression(passkey: PasskeyRecord, received: number, meta: RequestMeta): Promise<never> {
    const { ctx } = this;
    const { userId, id: passkeyId, counter: stored } = passkey;
    await emit(ctx, "PasskeyCounterRegression", { userId, passkeyId, stored, received }, meta);
    await emit(
      ctx,
      "SignInFailed",
      { identifier: accountLockKey({ id: userId }, ""), reason: "passkey-counter" },
      meta,
    );
    throw new AuthError(
      "PASSKEY_COUNTER_REGRESSION",
      "This passkey's signature counter went backwards: it may have been copied. Sign in another way",
    );
  }

  /** The user's passkeys, oldest first. */
  async list(userId: string): Promise<PasskeyView[]> {
    return (await this.port.listByUser(userId)).map(viewOf);
  }

  /** Renames a passkey of the user (1 to 64 characters); 404 `PASSKEY_NOT_FOUND`. */
  async rename(userId: string, id: string, name: unknown): Promise<PasskeyView> {
    const renamed = await this.port.rename(userId, id, nameOf(name));
    if (!renamed) throw new AuthError("PASSKEY_NOT_FOUND", "No such passkey");
    return viewOf(renamed);
  }

  /**
   * Deletes a passkey of the user; 409 `LAST_ACCOUNT` when it is the user's last way to sign in (decided
   * atomically by the store), 404 `PASSKEY_NOT_FOUND`. Emits `PasskeyRemoved`.
   */
  async delete(userId: string, id: string, meta: RequestMeta): Promise<{ success: true }> {
    const result = await this.port.delete(userId, id);
    if (result === "not-found") throw new AuthError("PASSKEY_NOT_FOUND", "No such passkey");
    if (result === "last")
      throw new AuthError("LAST_ACCOUNT", "This is the account's last way to sign in: add another before removing it");
    await emit(this.ctx, "PasskeyRemoved", { userId, passkeyId: id }, meta);
    return { success: true };
  }
}
