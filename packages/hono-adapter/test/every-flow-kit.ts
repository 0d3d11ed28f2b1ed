import type { Store } from "@latchkey/core";

/** What the flows need from the test: an HTTP caller that records error bodies, and a secret keeper. */
export interface FlowHarness {
  store: Store;
  /** Sends a JSON request (Bearer `token` when given) and answers the parsed body, expecting `status` (200). */
  json<T = Record<string, unknown>>(
    method: string,
    path: string,
    init?: { body?: unknown; token?: string; headers?: Record<string, string> },
    status?: number,
  ): Promise<T>;
  /** Waits for background work (emails) the requests handed to `waitUntil`. */
  settle(): Promise<void>;
  /** The latest plaintext code or token sent to `identifier` for `purpose` (from `OtpGenerated`). */
  latest(identifier: string, purpose: string): string;
  /** Records a secret for the scan and returns it. */
  keep(label: string, value: string | null | undefined): string;
}

/** What every part of the flows (every-flow.ts) shares: the harness's keeper and store, and small helpers over them. */
export function flowKit(h: FlowHarness) {
  const { keep, store } = h;
  const session = (r: Record<string, unknown>) => keep("session token", (r.credentials as { token: string }).token);
  const storedPasswordHash = async (userId: string) => {
    const account = (await store.accounts.listByUser(userId)).find((a) => a.passwordHash);
    keep("stored password hash", account?.passwordHash);
  };
  const otp = (body: Record<string, unknown>) => h.json("POST", "/email-otp/send-verification-otp", { body });
  return { keep, session, storedPasswordHash, otp };
}

export type FlowKit = ReturnType<typeof flowKit>;
