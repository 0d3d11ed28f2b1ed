import type { ServerProcess } from "./process.ts";

export const SEED_PASSWORD = "correct-horse-battery-staple";

/** What a seeded server holds: users with one session each, and two API keys of the first user. */
export interface Seed {
  users: Array<{ email: string; cookie: string; userId: string }>;
  keys: { unlimited: string; quota: string } | null;
}

function cookieHeader(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => pair.includes("=") && !pair.endsWith("="))
    .join("; ");
}

/** The same public sign-up request on both servers; each answer carries the session cookie and the user id. */
async function signUp(
  server: ServerProcess,
  email: string,
): Promise<{ email: string; cookie: string; userId: string }> {
  const response = await fetch(`${server.baseUrl}/auth/sign-up/email`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: server.baseUrl },
    body: JSON.stringify({ email, password: SEED_PASSWORD, name: "Bench User" }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${server.spec.impl}: sign-up ${email} answered ${response.status}: ${text}`);
  const body = JSON.parse(text) as { user: { id: string } };
  const cookie = cookieHeader(response);
  if (!cookie) throw new Error(`${server.spec.impl}: sign-up set no cookie`);
  return { email, cookie, userId: body.user.id };
}

/** Signs up `count` users over HTTP (4 at a time) and, when the server has API keys, creates the two keys. */
export async function seed(server: ServerProcess, count: number, withKeys: boolean): Promise<Seed> {
  const users: Seed["users"] = [];
  for (let i = 0; i < count; i += 4) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 4); j += 1) batch.push(signUp(server, `user${j}@bench.test`));
    users.push(...(await Promise.all(batch)));
  }
  let keys: Seed["keys"] = null;
  const first = users[0];
  if (withKeys && first) {
    const response = await fetch(`${server.baseUrl}/__bench/api-keys`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userId: first.userId }),
    });
    if (!response.ok)
      throw new Error(`${server.spec.impl}: creating API keys answered ${response.status}: ${await response.text()}`);
    keys = (await response.json()) as { unlimited: string; quota: string };
  }
  return { users, keys };
}

/** Collects garbage in the server (it runs with --expose-gc) so one scenario's garbage is not the next one's pause. */
export async function collectGarbage(server: ServerProcess): Promise<void> {
  await fetch(`${server.baseUrl}/__bench/gc`, { method: "POST" }).then((r) => r.text());
}
