// The Devices page: where the account is signed in, named as people name devices ("Chrome 150 on Linux").
import { useEffect, useState } from "react";
import Bowser from "bowser";
import type { LatchkeyError, SessionListItem } from "@latchkey/client";
import { ErrorText, Notice, timeAgo } from "./shared.tsx";
import { auth } from "./client.ts";

/** "Chrome 150 on Linux" from a User-Agent string (bowser); the raw string stays in the cell's title. */
function deviceName(userAgent: string | null): string {
  if (!userAgent) return "Unknown device";
  const parsed = Bowser.parse(userAgent);
  const major = parsed.browser.version?.split(".")[0];
  const browser = parsed.browser.name ? [parsed.browser.name, major].filter(Boolean).join(" ") : null;
  const os = parsed.os.name ?? null;
  if (browser && os) return `${browser} on ${os}`;
  return browser ?? os ?? "Unknown device";
}

/** The signed-in user's sessions: sign out one device, or every other one. */
export function Devices() {
  const [sessions, setSessions] = useState<SessionListItem[]>([]);
  const [error, setError] = useState<LatchkeyError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = async () => {
    const r = await auth.listSessions();
    // Only a failure to list shows: an action's own error (set before this reload) stays on screen.
    if (r.error) setError(r.error);
    if (r.data) setSessions(r.data.sessions);
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once on mount; `load` is recreated each render.
  useEffect(() => void load(), []);
  return (
    <section>
      <h1>Devices</h1>
      <p>Every place your account is signed in, newest first.</p>
      <ErrorText error={error} />
      {notice && <Notice>{notice}</Notice>}
      <table>
        <thead>
          <tr>
            <th>Device</th>
            <th>IP address</th>
            <th>Signed in</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.id} data-testid="device-row">
              <td>
                <span data-testid="device-name" title={s.userAgent ?? undefined}>
                  {deviceName(s.userAgent)}
                </span>
                {s.current && <strong data-testid="this-device"> (this device)</strong>}
              </td>
              <td>{s.ip ?? "—"}</td>
              <td>
                <time dateTime={s.createdAt} title={new Date(s.createdAt).toLocaleString("en-GB")}>
                  {timeAgo(s.createdAt)}
                </time>
              </td>
              <td>
                {!s.current && (
                  <button
                    type="button"
                    onClick={async () => {
                      const r = await auth.revokeSession({ sessionId: s.id });
                      setError(r.error);
                      if (!r.error) setNotice("That device is signed out.");
                      await load();
                    }}
                  >
                    Sign out this device
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        type="button"
        onClick={async () => {
          const r = await auth.revokeOtherSessions();
          setError(r.error);
          if (r.data) setNotice(`Signed out ${r.data.revoked} other ${r.data.revoked === 1 ? "device" : "devices"}.`);
          await load();
        }}
      >
        Sign out everywhere else
      </button>
    </section>
  );
}
