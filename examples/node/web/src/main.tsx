// The demo web app: every Latchkey flow through @latchkey/client only (no hand-written fetch).
import { type ReactNode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { ApiKey, ApiKeyUsage, LatchkeyError } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, ErrorText, Field, Notice } from "./shared.tsx";
import { auth } from "./client.ts";
import { Devices } from "./devices.tsx";
import { ConnectedAccounts, SocialSignIn } from "./social.tsx";
import { SecondStep, TwoFactorSettings } from "./two-factor.tsx";

function usePath(): [string, (to: string) => void] {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const onPop = () => setPath(location.pathname);
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);
  return [
    path,
    (to: string) => {
      history.pushState(null, "", to);
      setPath(new URL(to, location.href).pathname);
    },
  ];
}

const query = (name: string) => new URLSearchParams(location.search).get(name) ?? "";

function App() {
  const [path, go] = usePath();
  const { data, isPending } = useSession(auth);
  const link = (to: string, text: string) => (
    <a
      href={to}
      onClick={(e) => {
        e.preventDefault();
        go(to);
      }}
    >
      {text}
    </a>
  );
  let page: ReactNode;
  switch (path) {
    case "/sign-up":
      page = <SignUp go={go} />;
      break;
    case "/sign-in":
      page = <SignIn go={go} />;
      break;
    case "/verify":
      page = <VerifyByCode />;
      break;
    case "/forgot-password":
      page = <ForgotPassword />;
      break;
    case "/reset-password":
      page = <ResetPassword go={go} />;
      break;
    case "/verify-email":
      page = <VerifyByLink go={go} />;
      break;
    case "/settings":
      page = <Settings />;
      break;
    case "/api-keys":
      page = <ApiKeys />;
      break;
    case "/devices":
      page = <Devices />;
      break;
    case "/two-factor":
      page = <TwoFactorSettings />;
      break;
    case "/accounts":
      page = <ConnectedAccounts />;
      break;
    case "/jwt":
      page = <Jwt />;
      break;
    case "/delete-account":
      page = <DeleteAccount go={go} />;
      break;
    case "/delete-account/confirm":
      page = <ConfirmDeletion go={go} />;
      break;
    default:
      // A social sign-in of a two-factor account comes back to its callback URL with `?twoFactorRequired=true`.
      page = query("twoFactorRequired") === "true" ? <SecondStep onDone={() => location.assign("/")} /> : <Home />;
  }
  return (
    <>
      <header>
        <strong>{link("/", "Latchkey demo")}</strong>
        <nav>
          {data ? (
            <>
              {link("/settings", "Settings")}
              {link("/verify", "Verify email")}
              {link("/api-keys", "API keys")}
              {link("/devices", "Devices")}
              {link("/two-factor", "Two-factor")}
              {link("/accounts", "Connected accounts")}
              {link("/jwt", "JWT")}
              {link("/delete-account", "Delete account")}
              <button
                type="button"
                onClick={async () => {
                  await auth.signOut();
                  go("/");
                }}
              >
                Sign out
              </button>
            </>
          ) : (
            <>
              {link("/sign-in", "Sign in")}
              {link("/sign-up", "Sign up")}
              {link("/forgot-password", "Forgot password")}
            </>
          )}
        </nav>
        <span data-testid="who">{isPending ? "…" : data ? `Signed in as ${data.user.email}` : "Signed out"}</span>
      </header>
      <main>{page}</main>
    </>
  );
}

function Home() {
  const { data } = useSession(auth);
  if (!data)
    return (
      <section>
        <h1>Welcome</h1>
        <p>Sign up or sign in. Emails (codes and links) are printed on the server's console.</p>
        <p>
          The API explorer is at <a href="/auth/reference">/auth/reference</a>.
        </p>
      </section>
    );
  const { user } = data;
  return (
    <section>
      <h1>Hello{user.name ? `, ${user.name}` : ""}</h1>
      <p data-testid="email-status">
        {user.emailVerified ? "Your email is verified." : "Your email is not verified yet."}
      </p>
      <dl>
        <dt>Email</dt>
        <dd data-testid="profile-email">{user.email}</dd>
        <dt>Name</dt>
        <dd data-testid="profile-name">{user.name ?? "—"}</dd>
        <dt>Username</dt>
        <dd data-testid="profile-username">{user.username ?? "—"}</dd>
        <dt>Image</dt>
        <dd data-testid="profile-image">{user.image ?? "—"}</dd>
      </dl>
    </section>
  );
}

function SignUp({ go }: { go: (to: string) => void }) {
  return (
    <section>
      <h1>Create an account</h1>
      <ActionForm
        name="sign up"
        submit="Create account"
        run={(f) => auth.signUpEmail({ email: f.email!, password: f.password!, name: f.name || null })}
        onDone={() => go("/verify")}
      >
        <Field label="Email" name="email" type="email" autoComplete="email" />
        <Field label="Name" name="name" required={false} />
        <Field label="Password" name="password" type="password" autoComplete="new-password" />
      </ActionForm>
    </section>
  );
}

/** Where a sign-in goes next: home, or the second step when the account has two-factor on. */
function afterSignIn(data: object, go: (to: string) => void, second: () => void) {
  if ("twoFactorRequired" in data) second();
  else go("/");
}

function SignIn({ go }: { go: (to: string) => void }) {
  const [codeFor, setCodeFor] = useState<string | null>(null);
  const [secondStep, setSecondStep] = useState(false);
  if (secondStep) return <SecondStep onDone={() => go("/")} />;
  const next = (data: object) => afterSignIn(data, go, () => setSecondStep(true));
  return (
    <>
      <section>
        <h1>Sign in with a password</h1>
        <ActionForm
          name="sign in with password"
          submit="Sign in"
          run={(f) => {
            // An unchecked box is absent from the form data: a session that ends with the browser.
            const rememberMe = f.rememberMe === "on";
            return f.login!.includes("@")
              ? auth.signInEmail({ email: f.login!, password: f.password!, rememberMe })
              : auth.signInEmail({ username: f.login!, password: f.password!, rememberMe });
          }}
          onDone={next}
        >
          <Field label="Email or username" name="login" autoComplete="username" />
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
          <label className="checkbox">
            <input type="checkbox" name="rememberMe" defaultChecked /> Remember me
          </label>
        </ActionForm>
      </section>
      <section>
        <h2>Sign in with an emailed code</h2>
        {codeFor === null ? (
          <ActionForm
            name="email me a sign-in code"
            submit="Email me a code"
            run={async (f) => {
              const r = await auth.sendVerificationOtp({ email: f.email!, purpose: "sign-in" });
              if (!r.error) setCodeFor(f.email!);
              return r;
            }}
          >
            <Field label="Email" name="email" type="email" />
          </ActionForm>
        ) : (
          <ActionForm
            name="sign in with code"
            submit="Sign in with code"
            run={(f) => auth.signInEmailOtp({ email: codeFor, otp: f.otp! })}
            onDone={next}
          >
            <Notice>We sent a code to {codeFor}.</Notice>
            <Field label="Code" name="otp" autoComplete="one-time-code" />
          </ActionForm>
        )}
      </section>
      <SocialSignIn />
    </>
  );
}

function VerifyByCode() {
  const { data } = useSession(auth);
  const [sent, setSent] = useState(false);
  if (!data)
    return (
      <section>
        <p>Sign in first.</p>
      </section>
    );
  if (data.user.emailVerified)
    return (
      <section>
        <Notice>Your email {data.user.email} is verified.</Notice>
      </section>
    );
  const email = data.user.email;
  return (
    <section>
      <h1>Verify your email</h1>
      <ActionForm
        name="email me a verification code"
        submit={sent ? "Send another code" : "Email me a code"}
        run={async () => {
          const r = await auth.sendVerificationOtp({ email, purpose: "email-verification" });
          if (!r.error) setSent(true);
          return r;
        }}
      >
        <p>We will send a code to {email}.</p>
      </ActionForm>
      {sent && (
        <ActionForm name="verify email" submit="Verify" run={(f) => auth.verifyEmailOtp({ email, otp: f.otp! })}>
          <Field label="Code" name="otp" autoComplete="one-time-code" />
        </ActionForm>
      )}
    </section>
  );
}

function ForgotPassword() {
  const [done, setDone] = useState(false);
  return (
    <section>
      <h1>Forgot your password?</h1>
      {done ? (
        <Notice>If that email has an account, a link to set a new password is on its way.</Notice>
      ) : (
        <ActionForm
          name="request password reset"
          submit="Email me a link"
          run={(f) => auth.requestPasswordReset({ email: f.email!, redirectTo: "/reset-password" })}
          onDone={() => setDone(true)}
        >
          <Field label="Email" name="email" type="email" />
        </ActionForm>
      )}
    </section>
  );
}

function ResetPassword({ go }: { go: (to: string) => void }) {
  const [done, setDone] = useState(false);
  const token = query("token");
  return (
    <section>
      <h1>Set a new password</h1>
      {done ? (
        <>
          <Notice>Your password is changed. Every session was signed out.</Notice>
          <button type="button" onClick={() => go("/sign-in")}>
            Go to sign in
          </button>
        </>
      ) : (
        <ActionForm
          name="reset password"
          submit="Set password"
          run={(f) => auth.resetPassword({ token, newPassword: f.newPassword! })}
          onDone={() => setDone(true)}
        >
          <Field label="New password" name="newPassword" type="password" autoComplete="new-password" />
        </ActionForm>
      )}
    </section>
  );
}

function VerifyByLink({ go }: { go: (to: string) => void }) {
  return (
    <section>
      <h1>Verify your email</h1>
      <ActionForm
        name="verify email link"
        submit="Verify and sign in"
        run={() => auth.verifyEmail({ email: query("email"), token: query("token") })}
        onDone={() => go("/")}
      >
        <p>Confirm {query("email")}.</p>
      </ActionForm>
    </section>
  );
}

function Settings() {
  const { data } = useSession(auth);
  const [saved, setSaved] = useState<string | null>(null);
  if (!data)
    return (
      <section>
        <p>Sign in first.</p>
      </section>
    );
  const { user } = data;
  return (
    <>
      <section>
        <h1>Profile</h1>
        {saved && <Notice>{saved}</Notice>}
        <ActionForm
          name="profile"
          submit="Save profile"
          run={(f) =>
            auth.updateUser({
              name: f.name || null,
              image: f.image || null,
              ...(f.username ? { username: f.username } : {}),
            })
          }
          onDone={() => setSaved("Profile saved.")}
        >
          <Field label="Name" name="name" defaultValue={user.name ?? ""} required={false} />
          <Field label="Image URL" name="image" defaultValue={user.image ?? ""} required={false} />
          <Field label="Username" name="username" defaultValue={user.username ?? ""} required={false} />
        </ActionForm>
      </section>
      <section>
        <h2>Add a password</h2>
        <p>For accounts made with an emailed code.</p>
        <ActionForm
          name="set password"
          submit="Add password"
          run={(f) => auth.setPassword({ newPassword: f.newPassword! })}
          onDone={() => setSaved("Password added.")}
        >
          <Field label="New password" name="newPassword" type="password" autoComplete="new-password" />
        </ActionForm>
      </section>
      <section>
        <h2>Check your password</h2>
        <ActionForm
          name="verify password"
          submit="Check"
          run={(f) => auth.verifyPassword({ password: f.password! })}
          onDone={() => setSaved("That password is right.")}
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
        </ActionForm>
      </section>
    </>
  );
}

const LIFETIMES: Array<[string, string]> = [
  ["1d", "1 day"],
  ["30d", "30 days"],
  ["365d", "1 year"],
];

function ApiKeys() {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const load = async () => {
    const r = await auth.listApiKeys({ limit: 50 });
    if (r.error) setError(r.error);
    if (r.data) setKeys(r.data.apiKeys);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once on mount; `load` is recreated each render.
  useEffect(() => void load(), []);
  return (
    <>
      <section>
        <h1>API keys</h1>
        <ActionForm
          name="create api key"
          submit="Create key"
          run={(f) =>
            auth.createApiKey({ name: f.name || null, expiresIn: f.expiresIn!, permissions: { demo: ["read"] } })
          }
          onDone={(d) => {
            setCreated(d.key);
            void load();
          }}
        >
          <Field label="Name" name="name" required={false} />
          <label>
            Lifetime
            <select name="expiresIn" defaultValue="30d">
              {LIFETIMES.map(([v, t]) => (
                <option key={v} value={v}>
                  {t}
                </option>
              ))}
            </select>
          </label>
        </ActionForm>
        {created && (
          <>
            <Notice>Copy this key now: it is shown only once.</Notice>
            <pre data-testid="new-key">{created}</pre>
          </>
        )}
      </section>
      <section>
        <h2>Your keys</h2>
        <ErrorText error={error} />
        {keys.length === 0 ? (
          <p data-testid="no-keys">No keys.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Starts with</th>
                <th>Expires</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-testid="key-row">
                  <td>{k.name ?? "—"}</td>
                  <td>
                    <code>{k.start}…</code>
                  </td>
                  <td>{k.expiresAt ? new Date(k.expiresAt).toLocaleDateString("en-GB") : "never"}</td>
                  <td>
                    <button
                      type="button"
                      onClick={async () => {
                        // The old value keeps working for an hour, so clients can switch without an outage.
                        const r = await auth.rerollApiKey({ keyId: k.id, gracePeriod: "1h" });
                        setError(r.error);
                        if (r.data) setCreated(r.data.key);
                        await load();
                      }}
                    >
                      Reroll {k.name ?? k.start}
                    </button>{" "}
                    <button
                      type="button"
                      onClick={async () => {
                        const r = await auth.deleteApiKey({ keyId: k.id });
                        setError(r.error);
                        setCreated(null);
                        await load();
                      }}
                    >
                      Revoke {k.name ?? k.start}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {keys.map((k) => (
        <UsageChart key={k.id} apiKey={k} />
      ))}
    </>
  );
}

const CHART_DAYS = 14;

/** Valid verifies (and refusals) per day for the last 14 days, as bars scaled to the busiest day. */
function UsageChart({ apiKey }: { apiKey: ApiKey }) {
  const [usage, setUsage] = useState<ApiKeyUsage | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const load = async () => {
    const r = await auth.getApiKeyUsage({ keyId: apiKey.id, days: CHART_DAYS });
    setError(r.error);
    if (r.data) setUsage(r.data);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: reloads when the key changes; `load` is recreated each render.
  useEffect(() => void load(), [apiKey.id, apiKey.updatedAt]);
  const days = usage?.days ?? [];
  const refusedOf = (d: ApiKeyUsage["days"][number]) => Object.values(d.refused).reduce((a, n) => a + (n ?? 0), 0);
  const max = Math.max(1, ...days.map((d) => d.valid + refusedOf(d)));
  const name = apiKey.name ?? apiKey.start;
  return (
    <section aria-label={`usage of ${name}`}>
      <h2>
        Usage of {name}, last {CHART_DAYS} days{" "}
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </h2>
      <ErrorText error={error} />
      <div className="usage-chart" role="img" aria-label={`verifies per day of ${name}`}>
        {days.map((d) => (
          <div
            key={d.date}
            className="usage-day"
            data-testid="usage-bar"
            data-valid={d.valid}
            data-refused={refusedOf(d)}
            title={`${d.date}: ${d.valid} valid, ${refusedOf(d)} refused`}
          >
            <div className="usage-refused" style={{ height: `${(refusedOf(d) / max) * 100}%` }} />
            <div className="usage-valid" style={{ height: `${(d.valid / max) * 100}%` }} />
            <span>{d.date.slice(8)}</span>
          </div>
        ))}
      </div>
    </section>
  );
}

const jwks = createRemoteJWKSet(new URL("/auth/jwks", location.origin));

function Jwt() {
  const { jwt, data } = useSession(auth);
  const [token, setToken] = useState<string | null>(null);
  const [claims, setClaims] = useState<JWTPayload | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  // A fresh token from /auth/token belongs to the session that asked: gone with it (sign-out, deletion, expiry).
  const signedIn = data !== null;
  useEffect(() => {
    if (!signedIn) {
      setToken(null);
      setClaims(null);
    }
  }, [signedIn]);
  const current = signedIn ? (token ?? jwt) : null;
  useEffect(() => {
    if (!current) return;
    setClaims(null);
    setProblem(null);
    jwtVerify(current, jwks).then(
      (r) => setClaims(r.payload),
      (e: unknown) => setProblem(e instanceof Error ? e.message : String(e)),
    );
  }, [current]);
  return (
    <section>
      <h1>Your JWT</h1>
      <p>
        From the <code>set-auth-jwt</code> header of the last session check, or a fresh one from{" "}
        <code>/auth/token</code>.
      </p>
      <button
        type="button"
        onClick={async () => {
          const r = await auth.createToken();
          setError(r.error);
          if (r.data) setToken(r.data.token);
        }}
      >
        Get a fresh JWT
      </button>
      <ErrorText error={error} />
      {current ? <pre data-testid="jwt">{current}</pre> : <p>No JWT yet.</p>}
      {claims && (
        <Notice>
          <span data-testid="jwt-verified">
            Verified against /auth/jwks: subject {claims.sub}, expires{" "}
            {new Date((claims.exp ?? 0) * 1000).toISOString()}
          </span>
        </Notice>
      )}
      {problem && (
        <p className="error" role="alert">
          The signature could not be verified: {problem}
        </p>
      )}
    </section>
  );
}

function DeleteAccount({ go }: { go: (to: string) => void }) {
  const [sent, setSent] = useState(false);
  return (
    <>
      <section>
        <h1>Delete your account</h1>
        <ActionForm
          name="delete account with password"
          submit="Delete my account"
          run={(f) => auth.deleteAccount({ password: f.password! })}
          onDone={() => go("/")}
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
        </ActionForm>
      </section>
      <section>
        <h2>No password?</h2>
        {sent ? (
          <Notice>We emailed you a link that deletes the account.</Notice>
        ) : (
          <ActionForm
            name="email me a deletion link"
            submit="Email me a deletion link"
            run={() => auth.requestAccountDeletion()}
            onDone={() => setSent(true)}
          >
            <p>We will email a confirmation link.</p>
          </ActionForm>
        )}
      </section>
    </>
  );
}

function ConfirmDeletion({ go }: { go: (to: string) => void }) {
  const [done, setDone] = useState(false);
  return (
    <section>
      <h1>Confirm account deletion</h1>
      {done ? (
        <>
          <Notice>Your account is deleted.</Notice>
          <button type="button" onClick={() => go("/")}>
            Home
          </button>
        </>
      ) : (
        <ActionForm
          name="confirm deletion"
          submit="Delete my account for good"
          run={() => auth.confirmAccountDeletion({ token: query("token") })}
          onDone={() => setDone(true)}
        >
          <p>This cannot be undone.</p>
        </ActionForm>
      )}
    </section>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
