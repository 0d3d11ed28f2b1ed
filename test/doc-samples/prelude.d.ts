// What the code samples of README.md and docs/*.md may use without defining it: the app around a sample. Each
// sample is its own module, so a sample that defines one of these names shadows it. Checked by
// examples/node/src/doc-samples.test.ts.
import type { Hono } from "hono";
import type { FullStore, SessionView, UserView } from "@latchkey/core";
import type { Auth } from "@latchkey/hono-adapter";

/** The auth the samples talk about: every bundled plugin installed, so `auth.api` has their methods. */
type Core = typeof import("@latchkey/core");
type SampleAuth = Auth<
  readonly [
    ReturnType<Core["jwt"]>,
    ReturnType<Core["apiKeys"]>,
    ReturnType<Core["emailOtp"]>,
    ReturnType<Core["auditLog"]>,
  ]
>;

declare global {
  // The values an app has at hand.
  const auth: SampleAuth;
  const app: Hono;
  /** Environment variables, or a Worker's env with its bindings (`env.DB`). */
  // biome-ignore lint/suspicious/noExplicitAny: a Worker's bindings are whatever wrangler.toml declares.
  const env: Record<string, any>;
  const secret: string;
  const baseUrl: string;
  const database: FullStore;
  const email: string;
  const password: string;
  const userId: string;
  const token: string;
  const otp: string;
  const user: UserView;
  const session: SessionView;
  const request: Request;
  // What a sample imports in the paragraph around it rather than in its own lines.
  const createAuth: typeof import("@latchkey/hono-adapter").createAuth;
  const requestSession: typeof import("@latchkey/hono-adapter").requestSession;
  const toNodeHandler: typeof import("@latchkey/hono-adapter/node").toNodeHandler;
  const jwt: typeof import("@latchkey/core").jwt;
  const apiKeys: typeof import("@latchkey/core").apiKeys;
  const emailOtp: typeof import("@latchkey/core").emailOtp;
  const drizzleStore: typeof import("@latchkey/drizzle-store/postgres").drizzleStore;
  const createLatchkeyClient: typeof import("@latchkey/client").createLatchkeyClient;
  const serve: typeof import("@hono/node-server").serve;
}
