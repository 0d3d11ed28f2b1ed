// Two-factor: the settings page (QR code made on the page, recovery codes shown once with a download) and the
// second sign-in step.
import { useState } from "react";
import QRCode from "qrcode";
import { auth } from "./client.ts";
import { ActionForm, Field, Notice } from "./shared.tsx";

type Setup = { totpURI: string; secret: string; recoveryCodes: string[] };

/** The `otpauth://` URI as an SVG QR code, drawn here from the library's modules: the URI (it holds the key) never
 * leaves the page, and no markup is injected. */
function QrCode({ uri }: { uri: string }) {
  const { modules } = QRCode.create(uri, { errorCorrectionLevel: "M" });
  const size = modules.size;
  let path = "";
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) if (modules.get(x, y)) path += `M${x + 1} ${y + 1}h1v1h-1z`;
  return (
    <svg
      className="qr"
      viewBox={`0 0 ${size + 2} ${size + 2}`}
      role="img"
      aria-label="QR code for the authenticator app"
    >
      <rect width={size + 2} height={size + 2} fill="#fff" />
      <path d={path} fill="#000" />
    </svg>
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
          <label className="checkbox">
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
