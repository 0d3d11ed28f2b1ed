// Two-factor: the settings page (QR code made on the page, recovery codes shown once with a download) and the
// second sign-in step.
import { useEffect, useState } from "react";
import QRCode from "qrcode";
import { auth } from "./client.ts";
import { ActionForm, Field, Notice } from "./shared.tsx";

type Setup = { totpURI: string; secret: string; recoveryCodes: string[] };

/** The `otpauth://` URI as an SVG QR code, drawn here: the URI (it holds the key) never leaves the page. */
function QrCode({ uri }: { uri: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void QRCode.toString(uri, { type: "svg", margin: 1, errorCorrectionLevel: "M" }).then((text) => {
      if (live) setSvg(text);
    });
    return () => {
      live = false;
    };
  }, [uri]);
  if (svg === null) return null;
  // The SVG is generated locally by the QR library from our own URI: no markup from elsewhere.
  // biome-ignore lint/security/noDangerouslySetInnerHtml: see above
  return (
    <div
      className="qr"
      role="img"
      aria-label="QR code for the authenticator app"
      dangerouslySetInnerHTML={{ __html: svg }}
    />
  );
}

/** Recovery codes, shown once, with a download of them as a text file. */
function RecoveryCodes({ codes }: { codes: string[] }) {
  const href = URL.createObjectURL(new Blob([`${codes.join("\n")}\n`], { type: "text/plain" }));
  return (
    <>
      <Notice>
        Save these recovery codes now: each works once if you lose the authenticator app. They are not shown again.
      </Notice>
      <ul data-testid="recovery-codes" className="codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ul>
      <a href={href} download="latchkey-recovery-codes.txt">
        Download recovery codes
      </a>
    </>
  );
}

export function TwoFactorSettings() {
  const [setup, setSetup] = useState<Setup | null>(null);
  const [on, setOn] = useState(false);
  const [codes, setCodes] = useState<string[] | null>(null);
  return (
    <>
      <section>
        <h1>Two-factor authentication</h1>
        {on ? <Notice>Two-factor is on: signing in asks for a code from your authenticator app.</Notice> : null}
        {setup === null ? (
          <ActionForm
            name="set up two-factor"
            submit="Set up two-factor"
            run={(f) => auth.enableTwoFactor({ password: f.password! })}
            onDone={(data) => setSetup(data)}
          >
            <Field label="Password" name="password" type="password" autoComplete="current-password" />
          </ActionForm>
        ) : (
          <>
            <p>Scan this code with your authenticator app, or type the key in by hand.</p>
            <QrCode uri={setup.totpURI} />
            <p>
              Key: <code data-testid="totp-secret">{setup.secret}</code>
            </p>
            <RecoveryCodes codes={setup.recoveryCodes} />
            <ActionForm
              name="confirm two-factor"
              submit="Turn on two-factor"
              run={(f) => auth.verifyTwoFactorSetup({ code: f.code! })}
              onDone={() => {
                setSetup(null);
                setOn(true);
              }}
            >
              <Field label="Code from the app" name="code" autoComplete="one-time-code" />
            </ActionForm>
          </>
        )}
      </section>
      <section>
        <h2>New recovery codes</h2>
        {codes ? <RecoveryCodes codes={codes} /> : null}
        <ActionForm
          name="new recovery codes"
          submit="Make new recovery codes"
          run={(f) => auth.regenerateRecoveryCodes({ password: f.password! })}
          onDone={(data) => setCodes(data.recoveryCodes)}
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
        </ActionForm>
      </section>
      <section>
        <h2>Turn two-factor off</h2>
        <ActionForm
          name="turn off two-factor"
          submit="Turn off two-factor"
          run={(f) => auth.disableTwoFactor({ password: f.password!, code: f.code! })}
          onDone={() => setOn(false)}
        >
          <Field label="Password" name="password" type="password" autoComplete="current-password" />
          <Field label="Code from the app, or a recovery code" name="code" autoComplete="one-time-code" />
        </ActionForm>
      </section>
    </>
  );
}

/** The second sign-in step: the pending sign-in travels as its HttpOnly cookie. */
export function SecondStep({ onDone }: { onDone: () => void }) {
  const [recovery, setRecovery] = useState(false);
  return (
    <section>
      <h1>Two-factor authentication</h1>
      {recovery ? (
        <ActionForm
          name="sign in with a recovery code"
          submit="Sign in"
          run={(f) => auth.verifyTwoFactorRecoveryCode({ code: f.code! })}
          onDone={onDone}
        >
          <Field label="Recovery code" name="code" autoComplete="off" />
        </ActionForm>
      ) : (
        <ActionForm
          name="sign in with an authenticator code"
          submit="Verify"
          run={(f) => auth.verifyTwoFactor({ code: f.code!, trustDevice: f.trustDevice === "on" })}
          onDone={onDone}
        >
          <Field label="Code from the authenticator app" name="code" autoComplete="one-time-code" />
          <label className="check">
            <input type="checkbox" name="trustDevice" /> Trust this device for 30 days
          </label>
        </ActionForm>
      )}
      <button type="button" className="link" onClick={() => setRecovery(!recovery)}>
        {recovery ? "Use the authenticator app" : "Use a recovery code"}
      </button>
    </section>
  );
}
