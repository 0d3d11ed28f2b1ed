import { useState, type FormEvent, type ReactNode } from "react";
import type { ClientErrorCode, LatchkeyError, Result } from "@latchkey/client";

/** A query parameter of the page's URL ("" when absent). */
export const query = (name: string) => new URLSearchParams(location.search).get(name) ?? "";

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];
const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** "2 minutes ago", "yesterday", "just now": the largest unit that fits. */
export function timeAgo(iso: string, now: number = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  for (const [unit, size] of UNITS) {
    if (Math.abs(seconds) >= size) return relative.format(Math.trunc(seconds / size), unit);
  }
  return "just now";
}

/** What the person reads for each error: words, never codes. Unlisted codes show the server's own message. */
const MESSAGES: Partial<Record<ClientErrorCode, string>> = {
  INVALID_CREDENTIALS: "That email and password do not match an account.",
  INVALID_PASSWORD: "That password is not right.",
  ACCOUNT_LOCKED: "Too many failed attempts. Wait a few minutes, then try again.",
  RATE_LIMITED: "Too many requests. Wait a moment, then try again.",
  INVALID_OTP: "That code is not right. Check the email and try again.",
  OTP_EXPIRED: "That code has expired. Ask for a new one.",
  TOO_MANY_ATTEMPTS: "Too many wrong codes. Ask for a new one.",
  INVALID_TOKEN: "This link is invalid, used or expired. Ask for a new one.",
  USER_ALREADY_EXISTS: "An account with this email already exists. Sign in instead.",
  EMAIL_TAKEN: "Another account already uses this email.",
  USERNAME_TAKEN: "That username is taken. Pick another one.",
  INVALID_USERNAME: "Usernames are 3 to 30 letters, digits, dots or underscores.",
  PASSWORD_TOO_SHORT: "Use at least 8 characters for the password.",
  PASSWORD_TOO_LONG: "That password is too long.",
  PASSWORD_ALREADY_SET: "This account already has a password. Change it instead.",
  INVALID_EMAIL: "Enter a valid email address.",
  EMAIL_NOT_VERIFIED: "Verify your email address first.",
  INVALID_ORIGIN: "This page is not allowed to do that.",
  INVALID_REQUEST: "Some fields are missing or not valid.",
  SESSION_NOT_FOUND: "That device is already signed out.",
  SESSION_NOT_FRESH: "For your security, sign in again before doing this.",
  SIGN_UP_REJECTED: "Sign-up with this address is not allowed.",
  SIGN_IN_REJECTED: "This account cannot sign in.",
  WEAK_PASSWORD: "Choose a stronger password.",
  PASSWORD_COMPROMISED: "This password appeared in a data breach. Choose another one.",
  LAST_ACCOUNT: "This is your only way to sign in. Add a password, another passkey or another account first.",
  PASSKEY_CANCELLED: "The passkey request was cancelled or not allowed. Nothing was changed.",
  UNKNOWN_PASSKEY: "That passkey is not registered here (it may have been deleted). Sign in another way.",
  PASSKEY_NOT_FOUND: "That passkey is already deleted.",
  PASSKEY_ALREADY_REGISTERED: "This passkey is already registered.",
  PASSKEY_CHALLENGE_INVALID: "That passkey request expired or was already used. Try again.",
  INVALID_PASSKEY_RESPONSE: "That passkey could not be verified. Try again.",
  PASSKEY_COUNTER_REGRESSION:
    "That passkey may have been copied, so it was refused. Sign in another way and replace it.",
  PROVIDER_NOT_FOUND: "That sign-in provider is not set up on this server.",
  INVITATION_ALREADY_SENT: "This address has a pending invitation already: use Resend in the list of invitations.",
  NETWORK_ERROR: "The server cannot be reached. Check the connection and try again.",
};

function describeError(error: LatchkeyError): string {
  return MESSAGES[error.code] ?? error.message;
}

export function ErrorText({ error }: { error: LatchkeyError | null }) {
  return error ? (
    <p className="error" role="alert">
      {describeError(error)}
    </p>
  ) : null;
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <p className="notice" role="status">
      {children}
    </p>
  );
}

/** A form that runs one client call and shows its error in words. `onDone` gets the data. */
export function ActionForm<T>(props: {
  name: string;
  submit: string;
  run: (fields: Record<string, string>) => Promise<Result<T>>;
  onDone?: (data: T) => void;
  children: ReactNode;
}) {
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [busy, setBusy] = useState(false);
  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const fields = Object.fromEntries([...new FormData(event.currentTarget).entries()].map(([k, v]) => [k, String(v)]));
    setBusy(true);
    const result = await props.run(fields);
    setBusy(false);
    setError(result.error);
    if (result.error === null) props.onDone?.(result.data);
  }
  return (
    <form aria-label={props.name} onSubmit={onSubmit}>
      {props.children}
      <ErrorText error={error} />
      <button type="submit" disabled={busy}>
        {props.submit}
      </button>
    </form>
  );
}

export function Field(props: {
  label: string;
  name: string;
  type?: string;
  defaultValue?: string;
  required?: boolean;
  autoComplete?: string;
}) {
  return (
    <label>
      {props.label}
      <input
        name={props.name}
        type={props.type ?? "text"}
        defaultValue={props.defaultValue}
        required={props.required ?? true}
        autoComplete={props.autoComplete}
      />
    </label>
  );
}
