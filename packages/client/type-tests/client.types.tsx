// Compile-time checks (`tsc -p type-tests`, part of `pnpm typecheck`): each `@ts-expect-error` must stay an error,
// so a client that stopped rejecting the wrong call would fail the build with "unused @ts-expect-error".
import {
  createLatchkeyClient,
  type ClientErrorCode,
  type ErrorCode,
  type LatchkeyError,
  type User,
} from "../src/index.ts";
import type { ReactElement } from "react";
import { useSession } from "../src/react.ts";

type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

const client = createLatchkeyClient({ baseURL: "/auth" });

export async function bodies(): Promise<void> {
  await client.signInEmail({ email: "a@example.com", password: "correct horse battery" });
  await client.signInEmail({ username: "ada", password: "correct horse battery" });
  // @ts-expect-error a misspelt body field is a compile error
  await client.signInEmail({ emial: "a@example.com", password: "correct horse battery" });
  // @ts-expect-error a field of the wrong type is a compile error
  await client.signUpEmail({ email: "a@example.com", password: 12345678 });
  // @ts-expect-error a required field cannot be left out
  await client.resetPassword({ token: "t" });
  // @ts-expect-error unknown fields are refused on closed bodies
  await client.updateUser({ name: "Ada", email: "new@example.com" });
  // @ts-expect-error operations without a body take no input
  await client.signOut({ email: "a@example.com" });
  // @ts-expect-error the query of listApiKeys is typed too
  await client.listApiKeys({ limit: "ten" });
  await client.listApiKeys();
  await client.requestAccountDeletion();
  // Path parameters are fields of the input: `/passkey/{id}`.
  await client.renamePasskey({ id: "pk_1", name: "Laptop" });
  await client.deletePasskey({ id: "pk_1" });
  // @ts-expect-error the id of /passkey/{id} is required
  await client.deletePasskey({});
  // @ts-expect-error the name is a string
  await client.renamePasskey({ id: "pk_1", name: 5 });
  await client.passkey.signIn({ autoFill: true });
  await client.passkey.register({ name: "Laptop" });
}

export async function responses(): Promise<void> {
  const signIn = await client.signInEmail({ email: "a@example.com", password: "correct horse battery" });
  if (signIn.error) {
    assertType<Equals<typeof signIn.error, LatchkeyError>>(true);
    assertType<Equals<typeof signIn.error.code, ClientErrorCode>>(true);
    const code:
      | "INVALID_CREDENTIALS"
      | "ACCOUNT_LOCKED"
      | "RATE_LIMITED"
      | ErrorCode
      | "NETWORK_ERROR"
      | "PASSKEY_CANCELLED" = signIn.error.code;
    void code;
    // @ts-expect-error error codes are a closed union, not any string
    const nope: typeof signIn.error.code = "NOT_A_LATCHKEY_CODE";
    void nope;
    return;
  }
  // With two-factor on, a sign-in may answer the second step first: no user until it is finished.
  if ("twoFactorRequired" in signIn.data) {
    assertType<Equals<typeof signIn.data.twoFactorRequired, true>>(true);
    // @ts-expect-error no user before the second step
    void signIn.data.user;
    return;
  }
  assertType<Equals<typeof signIn.data.user, User>>(true);
  // Present only for a client that asks for it (bearer mode): a browser page is served by the cookie.
  const token: string | undefined = signIn.data.credentials?.token;
  // @ts-expect-error credentials may be absent (cookie-mode answers to a browser page)
  const certain: string = signIn.data.credentials.token;
  void token;
  void certain;
  const session = await client.getSession();
  if (session.data) {
    const email: string = session.data.user.email;
    const verified: boolean = session.data.user.emailVerified;
    void email;
    void verified;
    // @ts-expect-error responses are typed: there is no such field
    void session.data.user.password;
  }
  const key = await client.createApiKey({ name: "ci", expiresIn: "30d" });
  if (key.data) {
    const plaintext: string = key.data.key;
    const expires: string | null = key.data.apiKey.expiresAt;
    void plaintext;
    void expires;
  }
  const jwks = await client.getJwks();
  if (jwks.data) for (const k of jwks.data.keys) void k.kid;
}

export function Header(): ReactElement | null {
  const { data, isPending, error } = useSession(client);
  if (isPending) return null;
  if (error) {
    const code: ClientErrorCode = error.code;
    return <span>{code}</span>;
  }
  return <span>{data ? data.user.email : "signed out"}</span>;
}
