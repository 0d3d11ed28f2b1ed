// The demo web app: every Latchkey flow through @latchkey/client only (no hand-written fetch).
import { type ReactNode, useEffect, useState } from "react";
import { createRoot } from "react-dom/client";
import { useSession } from "@latchkey/client/react";
import { ActionForm, Field, Notice, query } from "./shared.tsx";
import { auth } from "./client.ts";
import { ConfirmDeletion, DeleteAccount, Settings } from "./account.tsx";
import { ApiKeys } from "./api-keys.tsx";
import { Devices } from "./devices.tsx";
import { Jwt } from "./jwt.tsx";
import { AcceptInvitation } from "./accept-invitation.tsx";
import { Members } from "./members.tsx";
import { Organizations } from "./organizations.tsx";
import { PasskeySignIn, PasskeySignUp, Passkeys, usePasskeyAutoFill } from "./passkeys.tsx";
import { ConnectedAccounts, SocialSignIn } from "./social.tsx";
import { SecondStep, TwoFactorSettings } from "./two-factor.tsx";
import { VerifyByCode } from "./verify.tsx";

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
    case "/passkeys":
      page = <Passkeys />;
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
    case "/organizations":
      page = <Organizations go={go} />;
      break;
    case "/members":
      page = <Members go={go} />;
      break;
    case "/accept-invitation":
      page = <AcceptInvitation go={go} />;
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
              {link("/passkeys", "Passkeys")}
              {link("/two-factor", "Two-factor")}
              {link("/accounts", "Connected accounts")}
              {link("/organizations", "Organizations")}
              {link("/members", "Members")}
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
      <PasskeySignUp onDone={() => go("/verify")} />
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
  const next = (data: object) => afterSignIn(data, go, () => setSecondStep(true));
  // Passkeys in the suggestions of the email field, from the moment the page shows (when the browser offers it).
  const autoFill = usePasskeyAutoFill(next);
  if (secondStep) return <SecondStep onDone={() => go("/")} />;
  return (
    <>
      <section>
        <h1>Sign in with a password</h1>
        <ActionForm
          name="sign in with password"
          submit="Sign in"
          run={async (f) => {
            // A password sign-in ends the pending passkey autofill; a failed one offers it again.
            autoFill.stop();
            // An unchecked box is absent from the form data: a session that ends with the browser.
            const rememberMe = f.rememberMe === "on";
            const r = f.login!.includes("@")
              ? await auth.signInEmail({ email: f.login!, password: f.password!, rememberMe })
              : await auth.signInEmail({ username: f.login!, password: f.password!, rememberMe });
            if (r.error) autoFill.restart();
            return r;
          }}
          onDone={next}
        >
          <Field label="Email or username" name="login" autoComplete="username webauthn" />
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
      <PasskeySignIn autoFill={autoFill} onSignedIn={next} />
      <SocialSignIn />
    </>
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

createRoot(document.getElementById("root")!).render(<App />);
