import { expect } from "vitest";
import type { FlowHarness, FlowKit } from "./every-flow-kit.ts";

/** Ada's API keys, with her session token `t`. */
export async function apiKeyFlows(h: FlowHarness, { keep }: FlowKit, t: string): Promise<void> {
  // API keys: create, verify (right, wrong, by header), list, update, delete, sweep.
  const created = await h.json<{ key: string; apiKey: { id: string } }>("POST", "/api-key/create", {
    token: t,
    body: { name: "ci", permissions: { files: ["read"] } },
  });
  const key = keep("API key", created.key);
  await h.json("POST", "/api-key/verify", { body: { key, permissions: { files: ["read"] } } });
  await h.json("POST", "/api-key/verify", { body: {}, headers: { "x-api-key": key } });
  const forged = keep("forged API key", `${key.slice(0, -4)}AAAA`);
  const failed = await h.json<{ valid: boolean }>("POST", "/api-key/verify", { body: { key: forged } });
  expect(failed.valid).toBe(false);
  await h.json("POST", "/api-key/verify", { body: { key, permissions: { files: ["write"] } } });
  await h.json("GET", "/api-key/list", { token: t });
  await h.json("POST", "/api-key/update", {
    token: t,
    body: { keyId: created.apiKey.id, name: "ci-2", enabled: false },
  });
  await h.json("POST", "/api-key/verify", { body: { key } });
  // Reroll with a grace: the new value once, both verify; the old one as deprecated. Usage per day.
  const rerolled = await h.json<{ key: string }>("POST", "/api-key/reroll", {
    token: t,
    body: { keyId: created.apiKey.id, gracePeriod: "1h" },
  });
  keep("rerolled API key", rerolled.key);
  await h.json("POST", "/api-key/update", { token: t, body: { keyId: created.apiKey.id, enabled: true } });
  await h.json("POST", "/api-key/verify", { body: { key: rerolled.key } });
  await h.json("POST", "/api-key/verify", { body: { key } });
  await h.json("GET", `/api-key/usage?keyId=${encodeURIComponent(created.apiKey.id)}&days=2`, { token: t });
  const second = await h.json<{ key: string; apiKey: { id: string } }>("POST", "/api-key/create", {
    token: t,
    body: { name: "temp" },
  });
  keep("API key", second.key);
  await h.json("POST", "/api-key/delete", { token: t, body: { keyId: second.apiKey.id } });
  await h.json("POST", "/api-key/delete-all-expired", { token: t });
}
