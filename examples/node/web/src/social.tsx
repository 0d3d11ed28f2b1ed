// Sign-in with the demo's OpenID provider ("Example ID", started by `pnpm demo`) and the Connected accounts page.
import { useEffect, useState } from "react";
import type { LatchkeyError } from "@latchkey/client";
import { ErrorText, Notice } from "./shared.tsx";
import { auth } from "./client.ts";

const PROVIDER = { id: "example-id", name: "Example ID" } as const;

/** What a flow that came back with `?error=<code>` tells the person. */
const FLOW_ERRORS: Record<string, string> = {
  OAUTH_ACCESS_DENIED: `You cancelled at ${PROVIDER.name}: you are not signed in.`,
  OAUTH_STATE_MISMATCH: "That sign-in expired or was started in another browser. Start again.",
  ACCOUNT_EXISTS: `An account with this email already exists. Sign in to it, then connect ${PROVIDER.name} on the Connected accounts page.`,
  ACCOUNT_ALREADY_LINKED: `That ${PROVIDER.name} account is already connected to another account.`,
  EMAIL_NOT_VERIFIED: `${PROVIDER.name} did not confirm that email address.`,
  OAUTH_PROVIDER_ERROR: `${PROVIDER.name} cannot be reached. Try again in a moment.`,
  SESSION_NOT_FRESH: "For your security, sign in again before connecting an account.",
};

/** The `?error=` a provider flow ended with, in words (unknown codes get a general sentence, never the raw text). */
function FlowError() {
  const code = new URLSearchParams(location.search).get("error");
  if (!code) return null;
  return (
    <p className="error" role="alert">
      {FLOW_ERRORS[code] ?? `Signing in with ${PROVIDER.name} did not work. Try again.`}
    </p>
  );
}

/** "Sign in with Example ID": the browser goes to the provider and comes back signed in (or to the second step). */
export function SocialSignIn() {
  const [error, setError] = useState<LatchkeyError | null>(null);
  return (
    <section>
      <h2>Sign in with another account</h2>
      <FlowError />
      <ErrorText error={error} />
      <button
        type="button"
        className="provider"
        onClick={async () => {
          const r = await auth.signIn.social({ provider: PROVIDER.id, callbackURL: "/", errorCallbackURL: "/sign-in" });
          setError(r.error);
        }}
      >
        Sign in with {PROVIDER.name}
      </button>
    </section>
  );
}

const METHOD_NAMES: Record<string, string> = {
  credential: "Email and password",
  EMAIL_OTP: "Emailed codes",
  MAGIC_LINK: "Magic links",
  [PROVIDER.id]: PROVIDER.name,
};

type LinkedAccount = NonNullable<Awaited<ReturnType<typeof auth.listAccounts>>["data"]>[number];

/** Every way the user signs in; connect the demo's provider, or disconnect one (never the last way in). */
export function ConnectedAccounts() {
  const [accounts, setAccounts] = useState<LinkedAccount[]>([]);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = async () => {
    const r = await auth.listAccounts();
    // Only a failure to list shows: an action's own error (set before this reload) stays on screen.
    if (r.error) setError(r.error);
    if (r.data) setAccounts(r.data);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once on mount; `load` is recreated each render.
  useEffect(() => void load(), []);
  const linked = accounts.some((a) => a.providerId === PROVIDER.id);
  return (
    <section>
      <h1>Connected accounts</h1>
      <p>Every way you can sign in to this account.</p>
      <FlowError />
      <ErrorText error={error} />
      {notice && <Notice>{notice}</Notice>}
      <ul className="accounts">
        {accounts.map((a) => (
          <li key={a.id} data-testid="account-row">
            <span>
              <strong>{METHOD_NAMES[a.providerId] ?? a.providerId}</strong>
              {a.accountId && <small> ({a.accountId})</small>}
              <small> · connected {new Date(a.createdAt).toLocaleDateString("en-GB")}</small>
            </span>
            {a.accountId && (
              <button
                type="button"
                onClick={async () => {
                  const r = await auth.unlinkAccount({ provider: a.providerId, accountId: a.accountId });
                  setError(r.error);
                  setNotice(r.error ? null : `${METHOD_NAMES[a.providerId] ?? a.providerId} is disconnected.`);
                  await load();
                }}
              >
                Disconnect
              </button>
            )}
          </li>
        ))}
      </ul>
      {!linked && (
        <button
          type="button"
          className="provider"
          onClick={async () => {
            const r = await auth.linkSocialAccount({
              provider: PROVIDER.id,
              callbackURL: "/accounts",
              errorCallbackURL: "/accounts",
            });
            setError(r.error);
          }}
        >
          Connect {PROVIDER.name}
        </button>
      )}
    </section>
  );
}
