// API keys: create, list, use, revoke, reroll, and the usage chart.
import { useEffect, useState } from "react";
import type { ApiKey, ApiKeyUsage, LatchkeyError } from "@latchkey/client";
import { ActionForm, ErrorText, Field, Notice } from "./shared.tsx";
import { auth } from "./client.ts";

const LIFETIMES: Array<[string, string]> = [
  ["1d", "1 day"],
  ["30d", "30 days"],
  ["365d", "1 year"],
];

export function ApiKeys() {
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
