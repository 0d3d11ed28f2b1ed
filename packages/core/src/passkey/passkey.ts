import {
  creationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
} from "./webauthn/options.ts";
import { AuthError } from "../errors/errors.ts";
import { base64url } from "../crypto/crypto.ts";
import { emit } from "../kernel/emit.ts";
import type { AuthContext } from "../context/context.ts";
import type { RequestMeta } from "../kernel/request-meta.ts";
import type { UserRecord } from "../ports/records.ts";
import type { PasskeyStore } from "../ports/store.ts";
import { companionCookie, type CookieDescriptor, type SignInResult } from "../session/session.ts";
import type { SignInOutcome } from "../session/sign-in-gate.ts";
import type { ResolvedPasskeyOptions } from "./options.ts";
import { PasskeyCeremonies, REGISTER_PREFIX } from "./ceremony.ts";
import { authenticationOptions, signIn } from "./sign-in.ts";
import { signUp, signUpOptions } from "./sign-up.ts";
import {
  challengeInvalid,
  descriptorOf,
  nameOf,
  registrationShape,
  userHandleOf,
  viewOf,
  type PasskeyCeremony,
  type PasskeySignInInput,
  type PasskeySignUpInput,
  type PasskeySignUpOptionsInput,
  type PasskeyView,
  type RegisterPasskeyInput,
} from "./shapes.ts";

export type {
  PasskeyCeremony,
  PasskeySignInInput,
  PasskeySignUpInput,
  PasskeySignUpOptionsInput,
  PasskeyView,
  RegisterPasskeyInput,
} from "./shapes.ts";

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
  private readonly ceremonies: PasskeyCeremonies;
  private readonly ctx: AuthContext;
  private readonly port: PasskeyStore;

  constructor(
    ctx: AuthContext,
    readonly options: ResolvedPasskeyOptions,
    port: PasskeyStore,
  ) {
    this.ctx = ctx;
    this.port = port;
    this.ceremonies = new PasskeyCeremonies(ctx, options, port);
    this.origins = this.ceremonies.origins;
  }

  /** The challenge cookie's name: the session cookie's, `passkey` for `session`. */
  get challengeCookieName(): string {
    return this.ceremonies.challengeCookieName;
  }

  /** A cookie that clears the challenge cookie (sent with every verify answer). */
  clearedCookie(): CookieDescriptor {
    return companionCookie(this.ctx.config, this.challengeCookieName, "", 0);
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
    return this.ceremonies.issue(REGISTER_PREFIX, user.id, creation);
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
    const { row, challenge } = await this.ceremonies.spend(input.token, REGISTER_PREFIX);
    if (row.userId !== user.id) throw challengeInvalid();
    const now = new Date(ctx.clock.now());
    const passkey = await this.ceremonies.verifiedPasskey(user.id, response, challenge, name, now);
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

  /** Options for signing up with a passkey (`allowPasskeyOnlyAccounts`); see `signUpOptions` in sign-up.ts. */
  signUpOptions(
    input: PasskeySignUpOptionsInput,
    meta: RequestMeta,
  ): Promise<PasskeyCeremony<PublicKeyCredentialCreationOptionsJSON>> {
    return signUpOptions(this.ceremonies, input, meta);
  }

  /** Signs up with a passkey (`allowPasskeyOnlyAccounts`); see `signUp` in sign-up.ts. */
  signUp(input: PasskeySignUpInput, meta: RequestMeta): Promise<SignInResult> {
    return signUp(this.ceremonies, input, meta);
  }

  /** Options for a passkey sign-in, discoverable or for one email's passkeys; see sign-in.ts. */
  authenticationOptions(input: {
    email?: string | null;
  }): Promise<PasskeyCeremony<PublicKeyCredentialRequestOptionsJSON>> {
    return authenticationOptions(this.ceremonies, input);
  }

  /** Signs in with a passkey; see `signIn` in sign-in.ts. */
  signIn(input: PasskeySignInInput, meta: RequestMeta): Promise<SignInOutcome> {
    return signIn(this.ceremonies, input, meta);
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
