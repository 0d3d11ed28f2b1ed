// Passkeys: the settings page (add, rename, delete) and passkey sign-in on the sign-in form (a button, and the
// browser's autofill on the email field).
import { useEffect, useRef, useState } from "react";
import type { LatchkeyError } from "@latchkey/client";
import { ActionForm, ErrorText, Field, Notice, timeAgo } from "./shared.tsx";
import { auth } from "./client.ts";

type PasskeyItem = NonNullable<Awaited<ReturnType<typeof auth.listPasskeys>>["data"]>[number];

const labelOf = (p: PasskeyItem) => p.name ?? "Unnamed passkey";

/** Whether this browser has WebAuthn at all (older browsers, some embedded views do not). */
const webAuthnAvailable = () => typeof window.PublicKeyCredential === "function";

/** Whether the browser offers passkeys in a field's autofill (conditional mediation). */
async function autoFillAvailable(): Promise<boolean> {
  if (!webAuthnAvailable()) return false;
  const check = (window.PublicKeyCredential as { isConditionalMediationAvailable?: () => Promise<boolean> } | undefined)
    ?.isConditionalMediationAvailable;
  return typeof check === "function" ? check.call(window.PublicKeyCredential).catch(() => false) : false;
}

/** Synced (backed up), eligible for sync but not yet backed up, or kept on one device only. */
function backupState(p: PasskeyItem): string {
  if (p.deviceType === "singleDevice") return "No, this device only";
  return p.backedUp ? "Yes, synced" : "Not yet";
}

/** The signed-in user's passkeys: add one (optionally named), rename, delete (never the last way in). */
export function Passkeys() {
  const [passkeys, setPasskeys] = useState<PasskeyItem[] | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<PasskeyItem | null>(null);
  const [off, setOff] = useState(false);
  // Bumped after each passkey added: a fresh, empty "Add a passkey" form.
  const [added, setAdded] = useState(0);
  const load = async () => {
    const r = await auth.listPasskeys();
    // No passkey routes: the server runs without passkeys() (the demo leaves it out on an IP address).
    if (r.error?.code === "NOT_FOUND") setOff(true);
    // Only a failure to list shows: an action's own error (set before this reload) stays on screen.
    else if (r.error) setError(r.error);
    if (r.data) setPasskeys(r.data);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once on mount; `load` is recreated each render.
  useEffect(() => void load(), []);
  if (off)
    return (
      <section>
        <h1>Passkeys</h1>
        <p data-testid="passkeys-off">
          Passkeys are not set up on this server. Browsers offer passkeys only on a host name: open the demo at
          http://localhost (not an IP address such as 127.0.0.1).
        </p>
      </section>
    );
  return (
    <>
      <section>
        <h1>Passkeys</h1>
        <p>
          Sign in with your fingerprint, face, device PIN or a security key instead of a password. Add a passkey on each
          device you use, so that losing one never locks you out.
        </p>
        <ErrorText error={error} />
        {notice && <Notice>{notice}</Notice>}
        {passkeys?.length === 0 && <p data-testid="no-passkeys">You have no passkeys yet.</p>}
        {passkeys !== null && passkeys.length > 0 && (
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Added</th>
                <th>Last used</th>
                <th>Backed up</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {passkeys.map((p) => (
                <tr key={p.id} data-testid="passkey-row">
                  <td data-testid="passkey-name">{labelOf(p)}</td>
                  <td>
                    <time dateTime={p.createdAt} title={new Date(p.createdAt).toLocaleString("en-GB")}>
                      {timeAgo(p.createdAt)}
                    </time>
                  </td>
                  <td data-testid="passkey-last-used">
                    {p.lastUsedAt ? (
                      <time dateTime={p.lastUsedAt} title={new Date(p.lastUsedAt).toLocaleString("en-GB")}>
                        {timeAgo(p.lastUsedAt)}
                      </time>
                    ) : (
                      "Never"
                    )}
                  </td>
                  <td data-testid="passkey-backup">{backupState(p)}</td>
                  <td className="actions">
                    <button type="button" aria-label={`Rename ${labelOf(p)}`} onClick={() => setRenaming(p)}>
                      Rename
                    </button>
                    <button
                      type="button"
                      aria-label={`Delete ${labelOf(p)}`}
                      onClick={async () => {
                        const r = await auth.deletePasskey({ id: p.id });
                        setError(r.error);
                        setNotice(r.error ? null : `${labelOf(p)} is deleted: it no longer signs in.`);
                        if (renaming?.id === p.id) setRenaming(null);
                        await load();
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      {renaming && (
        <section>
          <h2>Rename {labelOf(renaming)}</h2>
          <ActionForm
            key={renaming.id}
            name="rename passkey"
            submit="Save name"
            run={(f) => auth.renamePasskey({ id: renaming.id, name: f.name!.trim() })}
            onDone={(p) => {
              setRenaming(null);
              setError(null);
              setNotice(`Renamed to ${labelOf(p)}.`);
              void load();
            }}
          >
            <Field label="New name" name="name" defaultValue={renaming.name ?? ""} />
          </ActionForm>
          <button type="button" onClick={() => setRenaming(null)}>
            Cancel
          </button>
        </section>
      )}
      <section>
        <h2>Add a passkey</h2>
        {webAuthnAvailable() ? (
          <ActionForm
            key={added}
            name="add a passkey"
            submit="Add a passkey"
            run={(f) => auth.passkey.register(f.name?.trim() ? { name: f.name.trim() } : {})}
            onDone={(p) => {
              setError(null);
              setNotice(`${labelOf(p)} is added. You can sign in with it now.`);
              setAdded((n) => n + 1);
              void load();
            }}
          >
            <Field label="Name (optional)" name="name" required={false} />
          </ActionForm>
        ) : (
          <p>This browser does not support passkeys.</p>
        )}
      </section>
    </>
  );
}

/**
 * Passkey autofill (conditional mediation) on the sign-in form: started on mount when the browser offers it, so the
 * passkeys show in the suggestions of the `autocomplete="username webauthn"` field; `onSignedIn` gets the sign-in's
 * answer once the user picks one. `stop()` aborts the pending request (before a password or button sign-in; leaving
 * the page does it too); `restart()` offers the suggestions again after one failed. `off`: the server has no
 * passkey routes (404 `NOT_FOUND`: no `passkeys()`), so the page offers no passkey sign-in.
 */
export function usePasskeyAutoFill(onSignedIn: (data: object) => void) {
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [off, setOff] = useState(false);
  const [round, setRound] = useState(0);
  const running = useRef<AbortController | null>(null);
  const done = useRef(onSignedIn);
  done.current = onSignedIn;
  // biome-ignore lint/correctness/useExhaustiveDependencies: `round` is the restart trigger.
  useEffect(() => {
    const abort = new AbortController();
    running.current = abort;
    void (async () => {
      if (!(await autoFillAvailable()) || abort.signal.aborted) return;
      const r = await auth.passkey.signIn({ autoFill: true }, { signal: abort.signal });
      if (abort.signal.aborted) return;
      if (r.data) done.current(r.data);
      else if (r.error.code === "NOT_FOUND") setOff(true);
      // PASSKEY_CANCELLED: the request gave way to another one (the button); nothing the user needs to read.
      else if (r.error.code !== "PASSKEY_CANCELLED") setError(r.error);
    })();
    return () => abort.abort();
  }, [round]);
  return {
    error,
    off,
    turnOff: () => setOff(true),
    stop: () => {
      running.current?.abort();
      setError(null);
    },
    restart: () => setRound((n) => n + 1),
  };
}

/** "Sign in with a passkey": the browser lists this site's passkeys (autofill gives way while it runs). */
export function PasskeySignIn(props: {
  autoFill: ReturnType<typeof usePasskeyAutoFill>;
  onSignedIn: (data: object) => void;
}) {
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [busy, setBusy] = useState(false);
  if (!webAuthnAvailable() || props.autoFill.off) return null;
  return (
    <section>
      <h2>Sign in with a passkey</h2>
      <p>
        Use your fingerprint, face, device PIN or security key. Passkeys also show in the email field's suggestions.
      </p>
      <ErrorText error={error ?? props.autoFill.error} />
      <button
        type="button"
        disabled={busy}
        onClick={async () => {
          props.autoFill.stop();
          setBusy(true);
          const r = await auth.passkey.signIn();
          setBusy(false);
          if (r.error?.code === "NOT_FOUND") return props.autoFill.turnOff();
          setError(r.error);
          if (r.data) props.onSignedIn(r.data);
          else props.autoFill.restart();
        }}
      >
        Sign in with a passkey
      </button>
    </section>
  );
}

/**
 * Sign-up with a passkey alone (the server's `passkeys({ allowPasskeyOnlyAccounts: true })`): an email and a name,
 * then the browser's passkey prompt; the account is signed in at once and verifies its email with the code.
 */
export function PasskeySignUp(props: { onDone: () => void }) {
  const [off, setOff] = useState(false);
  if (!webAuthnAvailable()) return null;
  if (off)
    return (
      <section>
        <h2>Create an account with a passkey</h2>
        <p data-testid="passkey-sign-up-off">Passkeys are not set up on this server.</p>
      </section>
    );
  return (
    <section>
      <h2>Or create an account with a passkey</h2>
      <p>No password: your fingerprint, face, device PIN or security key signs you in.</p>
      <ActionForm
        name="create an account with a passkey"
        submit="Create account with a passkey"
        run={async (f) => {
          const r = await auth.passkey.signUp({ email: f.email!, ...(f.name ? { name: f.name } : {}) });
          if (r.error?.code === "NOT_FOUND") setOff(true);
          return r;
        }}
        onDone={props.onDone}
      >
        <Field label="Email" name="email" type="email" autoComplete="email" />
        <Field label="Name" name="name" required={false} />
      </ActionForm>
    </section>
  );
}
