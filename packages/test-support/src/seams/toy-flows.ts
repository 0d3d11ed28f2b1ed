import { hashSecret, type FullStore, type PasswordHasher } from "@latchkey/core";

// Toy flows written directly against the ports: small enough to reason about by hand, real enough (the memory
// store, the real invariants) that a planted ordering bug is a real bug.

export const hasher: PasswordHasher = {
  hash: async (p) => `plain:${p}`,
  verify: async (h, p) => h === `plain:${p}`,
};
export const at = new Date(Date.UTC(2026, 5, 1));
export const IDENTIFIER = "reset:ada";

export async function seedAda(store: FullStore) {
  const user = {
    id: "u1",
    email: "ada@example.com",
    emailVerified: true,
    name: null,
    image: null,
    username: null,
    metadata: {},
    appMetadata: {},
    createdAt: at,
    updatedAt: at,
    banned: false,
    banReason: null,
    banExpires: null,
  };
  const account = credential(await hasher.hash("old"));
  await store.users.create(user, [account]);
  await store.sessions.create(session("attacker-token"));
  await store.verifications.issue(resetRow("v1"));
}

export const resetRow = (id: string) => ({
  id,
  identifier: IDENTIFIER,
  valueHash: hashSecret("link"),
  attemptCount: 0,
  expiresAt: new Date(at.getTime() + 3_600_000),
  createdAt: at,
  userId: "u1",
  payload: null,
});

export const session = (token: string) => ({
  id: `s-${token}`,
  userId: "u1",
  tokenHash: hashSecret(token),
  expiresAt: new Date(at.getTime() + 86_400_000),
  createdAt: at,
  updatedAt: at,
  ip: null,
  userAgent: null,
  rememberMe: true,
  impersonatedBy: null,
});

/** An account row of `providerId` for `userId`, with a password hash or a provider subject when given. */
export const account = (
  id: string,
  userId: string,
  providerId: string,
  over: { passwordHash?: string; accountId?: string } = {},
) => ({
  id,
  userId,
  providerId,
  passwordHash: over.passwordHash ?? null,
  accountId: over.accountId ?? null,
  accessToken: null,
  refreshToken: null,
  idToken: null,
  accessTokenExpiresAt: null,
  refreshTokenExpiresAt: null,
  scope: null,
  createdAt: at,
  updatedAt: at,
});
const credential = (hash: string) => account("a1", "u1", "credential", { passwordHash: hash });

/** Sign-in that re-checks the password in the session's transaction (the fixed shape). */
export async function signIn(store: FullStore, password: string, token: string): Promise<boolean> {
  const account = (await store.accounts.listByUser("u1")).find((a) => a.passwordHash);
  if (!account?.passwordHash || !(await hasher.verify(account.passwordHash, password))) return false;
  return store.transaction(async (tx) => {
    const now = (await tx.accounts.listByUser("u1")).find((a) => a.passwordHash);
    if (now?.passwordHash !== account.passwordHash) return false;
    await tx.sessions.create(session(token));
    return true;
  });
}

export type ResetOrder = "password-revoke-spend" | "revoke-password-spend" | "password-spend-revoke";

/** A password reset whose steps run in the given order (each step its own write, as on a store without transactions). */
export async function reset(store: FullStore, order: ResetOrder, password: string): Promise<boolean> {
  const row = await store.verifications.findByIdentifier(IDENTIFIER);
  if (!row) return false;
  const steps = {
    password: async () => store.accounts.upsertPassword("u1", credential(await hasher.hash(password))),
    revoke: async () => void (await store.sessions.deleteByUser("u1")),
    spend: async () => {
      if (!(await store.verifications.consume(row.id))) throw new Error("spent");
    },
  };
  for (const step of order.split("-") as Array<keyof typeof steps>) await steps[step]();
  return true;
}
