import { randomUUID } from "node:crypto";
import type { AuthContext } from "@better-auth/core";
import * as core from "@latchkey/core";
import type { AccountRecord, AuthPlugin, Store, UserRecord } from "@latchkey/core";
import type { Auth } from "@latchkey/hono-adapter";
import { generateRandomString, symmetricEncrypt } from "better-auth/crypto";
import { serializeSignedCookie } from "better-call";
import { base32ToHex, type PoolItem, type ServerPoolKind, totpCode } from "../harness/pool.ts";
import { SEED_PASSWORD } from "../harness/seed.ts";

/** Seeds `count` single-use credentials of one kind in the server's own process (`POST /__bench/pool`). */
export type PoolSeeder = (kind: ServerPoolKind, count: number) => Promise<PoolItem[]>;

/** Addresses unique to the process and the run: every pool gets new users. */
let pooled = 0;
const address = (prefix: string) => `${prefix}-${process.pid}-${(pooled += 1)}@bench.test`;

/**
 * Latchkey's pools, through the library's own calls wherever they cost no password hash.
 *
 * Two-factor: the user (verified email, a credential account holding one argon2id hash computed once for the whole
 * pool: no hashing per user) through the store, then `auth.api.enableTwoFactor`, `auth.api.verifyTwoFactorSetup`
 * with the code of the previous time step (so the measured request's code, of the current step or later, is not a
 * replay), and the second step's gate (`challenge`: what a password sign-in of the user runs after the password
 * check). The measured request is only `POST /two-factor/verify`.
 *
 * Magic link: per address one link spent through `auth.api` (the user is created, verified, with its magic-link
 * account), then a second link, whose token (captured from `OtpGenerated` into `tokens`) the measured request
 * spends: `POST /magic-link/verify`, the confirm page's POST.
 */
export function latchkeyPoolSeeder(
  auth: Auth<readonly AuthPlugin[]>,
  store: Store,
  tokens: Map<string, string>,
): PoolSeeder {
  const api = auth.api as unknown as core.TwoFactorApi & core.MagicLinkApi;
  let passwordHash: string | null = null;
  async function twoFactorItem(): Promise<PoolItem> {
    const feature = auth.core.plugins.get(core.TWO_FACTOR_PLUGIN_ID);
    if (!feature) throw new Error("twoFactor() is not installed");
    passwordHash ??= await core.argon2idHasher({ random: core.webCryptoRandom }).hash(SEED_PASSWORD);
    const now = new Date();
    const user: UserRecord = {
      id: randomUUID(),
      email: address("tf"),
      emailVerified: true,
      name: "Bench User",
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
    // Core's `newAccount` (identity/accounts.ts) builds this record, but neither `@latchkey/core` nor
    // `@latchkey/core/internal` exports it, and it takes the AuthContext `createAuth` keeps to itself; the nearest
    // public helper, `auth.api.createUser`, hashes the password for every user (argon2id: minutes for a pool). So the
    // record is spelled out here, typed as the store's `AccountRecord`: a field core adds breaks the typecheck.
    const account: AccountRecord = {
      id: randomUUID(),
      userId: user.id,
      providerId: "credential",
      passwordHash,
      accountId: null,
      accessToken: null,
      refreshToken: null,
      idToken: null,
      accessTokenExpiresAt: null,
      refreshTokenExpiresAt: null,
      scope: null,
      createdAt: now,
      updatedAt: now,
    };
    if (!(await store.users.create(user, [account])).ok) throw new Error(`seeding ${user.email} failed`);
    const key = base32ToHex((await api.enableTwoFactor({ user })).secret);
    // A step boundary passing between the code and its check leaves the code two steps back (refused): once more.
    await api
      .verifyTwoFactorSetup({ user, code: totpCode(key, Date.now() - 30_000) })
      .catch(() => api.verifyTwoFactorSetup({ user, code: totpCode(key, Date.now() - 30_000) }));
    const challenge = await feature.service.signIn.challenge(
      store,
      user,
      { ip: null, userAgent: null },
      { method: "password", rememberMe: true, passwordHash },
    );
    if (!challenge) throw new Error("no second step for a two-factor user");
    return { credential: `${challenge.cookie.name}=${challenge.cookie.value}`, key };
  }
  async function magicLinkItem(): Promise<PoolItem> {
    const email = address("ml");
    await api.signInMagicLink({ email });
    await api.verifyMagicLink({ token: tokens.get(email) ?? "" });
    await api.signInMagicLink({ email });
    const token = tokens.get(email);
    if (!token) throw new Error(`no magic link captured for ${email}`);
    tokens.delete(email);
    return { credential: token };
  }
  return async (kind, count) => {
    const items: PoolItem[] = [];
    for (let i = 0; i < count; i += 1)
      items.push(kind === "two-factor" ? await twoFactorItem() : await magicLinkItem());
    return items;
  };
}

/** The part of a Better Auth instance the pools use (its `twoFactor()` and `magicLink()` installed). */
export interface BetterAuthForPools {
  /** Its context (typed by its options; read here as the plain `AuthContext`). */
  $context: Promise<unknown>;
  api: {
    signInMagicLink(input: { body: { email: string }; headers: Headers }): Promise<unknown>;
    magicLinkVerify(input: { query: { token: string }; headers: Headers }): Promise<unknown>;
  };
}

/**
 * Better Auth's pools, written through its own adapter calls as its flows write them.
 *
 * Two-factor: the user (`twoFactorEnabled: true`, verified email) and a credential account holding one scrypt hash
 * computed once for the whole pool; the `twoFactor` row as `/two-factor/enable` + `/two-factor/verify-totp` leave it
 * (secret and backup codes encrypted with its `symmetricEncrypt`, `verified: true`); then what its sign-in hook
 * writes for the second step: the `2fa-<random>` verification row (value: the user id), its `2fa-attempts-` row,
 * and the signed `two_factor` cookie (better-call's own signing). The measured request is only
 * `POST /two-factor/verify-totp`.
 *
 * Magic link: per address one link spent through `auth.api` (the user is created, verified), then a second link,
 * whose token (captured in `sendMagicLink` into `links`) the measured request spends: `GET /magic-link/verify`.
 */
export function betterAuthPoolSeeder(auth: BetterAuthForPools, links: Map<string, string>): PoolSeeder {
  let passwordHash: string | null = null;
  const headers = new Headers();
  async function twoFactorItem(ctx: AuthContext): Promise<PoolItem> {
    passwordHash ??= await ctx.password.hash(SEED_PASSWORD);
    const user = await ctx.internalAdapter.createUser(
      { email: address("tf"), name: "Bench User", emailVerified: true, twoFactorEnabled: true },
      { method: "email-password" },
    );
    await ctx.internalAdapter.linkAccount({
      userId: user.id,
      providerId: "credential",
      accountId: user.id,
      password: passwordHash,
    });
    const secret = generateRandomString(32);
    const backupCodes = Array.from({ length: 10 }, () => generateRandomString(10, "a-z", "0-9"));
    await ctx.adapter.create({
      model: "twoFactor",
      data: {
        secret: await symmetricEncrypt({ key: ctx.secretConfig, data: secret }),
        backupCodes: await symmetricEncrypt({ key: ctx.secretConfig, data: JSON.stringify(backupCodes) }),
        userId: user.id,
        verified: true,
      },
    });
    const identifier = `2fa-${generateRandomString(20)}`;
    const expiresAt = new Date(Date.now() + 600_000);
    await ctx.internalAdapter.createVerificationValue({ value: user.id, identifier, expiresAt });
    await ctx.internalAdapter.createVerificationValue({
      value: "0",
      identifier: `2fa-attempts-${identifier}`,
      expiresAt,
    });
    const name = ctx.createAuthCookie("two_factor", { maxAge: 600 }).name;
    const cookie = (await serializeSignedCookie(name, identifier, ctx.secret)).split(";")[0] ?? "";
    return { credential: cookie, key: Buffer.from(secret, "utf8").toString("hex") };
  }
  async function magicLinkItem(): Promise<PoolItem> {
    const email = address("ml");
    await auth.api.signInMagicLink({ body: { email }, headers });
    await auth.api.magicLinkVerify({ query: { token: links.get(email) ?? "" }, headers });
    await auth.api.signInMagicLink({ body: { email }, headers });
    const token = links.get(email);
    if (!token) throw new Error(`no magic link captured for ${email}`);
    links.delete(email);
    return { credential: token };
  }
  return async (kind, count) => {
    const ctx = (await auth.$context) as AuthContext;
    const items: PoolItem[] = [];
    for (let i = 0; i < count; i += 1)
      items.push(kind === "two-factor" ? await twoFactorItem(ctx) : await magicLinkItem());
    return items;
  };
}
