import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

/** The people who can sign in at the demo's provider: no password, one click each. */
const DEMO_PEOPLE = [
  { sub: "ada", email: "ada@example.id", email_verified: true, name: "Ada Lovelace" },
  { sub: "grace", email: "grace@example.id", email_verified: true, name: "Grace Hopper" },
] as const;

export const DEMO_PROVIDER_ID = "example-id";
export const DEMO_PROVIDER_NAME = "Example ID";

/** A running demo provider: what `oidc()` needs to use it. */
export interface DemoProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 4096) req.destroy(new Error("form too large"));
    });
    req.on("end", () => resolve(new URLSearchParams(body)));
    req.on("error", reject);
  });
}

/** The provider's sign-in page: who the app is, what it asks for, one button per demo person, and Cancel. */
function signInPage(uid: string): string {
  const people = DEMO_PEOPLE.map(
    (p) =>
      `<button name="person" value="${p.sub}">Continue as ${escapeHtml(p.name)}<small>${escapeHtml(p.email)}</small></button>`,
  ).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in – ${DEMO_PROVIDER_NAME}</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; background: #eef2f7; color: #14213d; display: grid; place-items: center; min-height: 100vh; margin: 0; }
main { background: #fff; border-radius: 12px; padding: 2rem; max-width: 26rem; box-shadow: 0 2px 12px #0002; }
h1 { margin-top: 0; color: #1d3557; }
button { display: block; width: 100%; margin: .5rem 0; padding: .7rem 1rem; border-radius: 8px; border: 1px solid #1d3557; background: #1d3557; color: #fff; font: inherit; text-align: left; cursor: pointer; }
button small { display: block; color: #dfe7f2; }
button.secondary { background: #fff; color: #1d3557; text-align: center; }
</style></head>
<body><main>
<h1>${DEMO_PROVIDER_NAME}</h1>
<p><strong>Latchkey demo</strong> wants to know who you are: your name and your verified email address.</p>
<p>This is a local test provider started by <code>pnpm demo</code>: pick a person, no password needed.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
${people}
</form>
<form method="post" action="/interaction/${escapeHtml(uid)}/abort">
<button class="secondary">Cancel</button>
</form>
</main></body></html>`;
}

/**
 * Starts a local OpenID provider (panva's `oidc-provider`) for the demo: one confidential client whose only
 * redirect URI is `redirectUri`, PKCE required, and a one-click sign-in page for the demo people. `port` 0 takes a
 * free port; the issuer is `http://<hostname>:<port>`.
 */
export async function startDemoProvider(options: {
  port: number;
  hostname: string;
  listenHost: string;
  redirectUri: string;
}): Promise<DemoProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.listenHost, () => resolve());
  });
  const issuer = `http://${options.hostname}:${(server.address() as AddressInfo).port}`;
  const clientId = "latchkey-demo";
  // A fresh secret per start: the provider and the app live in one process and learn it together.
  const clientSecret = randomBytes(32).toString("base64url");
  const people = new Map<string, (typeof DEMO_PEOPLE)[number]>(DEMO_PEOPLE.map((p) => [p.sub, p]));

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      return person ? { accountId: sub, claims: async () => ({ ...person }) } : undefined;
    },
    // The demo's access tokens expire after 5 minutes, so `POST /auth/get-access-token` shows a refresh.
    ttl: {
      AccessToken: 300,
      AuthorizationCode: 60,
      IdToken: 300,
      RefreshToken: 86_400,
      Interaction: 600,
      Session: 600,
      Grant: 86_400,
    },
    issueRefreshToken: async () => true,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
  });
  // The demo runs on plain http://localhost: no proxy in front, no Secure cookies to ask for.
  provider.on("server_error", (_ctx, error) => console.error(`[${DEMO_PROVIDER_ID}] ${error.message}`));
  const callback = provider.callback();

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/interaction\/([\w-]+)(\/login|\/abort)?$/.exec(req.url ?? "");
    if (!match) {
      callback(req, res);
      return;
    }
    void interaction(req, res, match[1] as string, match[2]).catch((error: unknown) => {
      res.statusCode = 400;
      res.setHeader("content-type", "text/plain; charset=utf-8");
      res.end(
        `This sign-in cannot go on (${error instanceof Error ? error.message : "unknown error"}). Start again from the app.`,
      );
    });
  });

  async function interaction(req: IncomingMessage, res: ServerResponse, uid: string, action: string | undefined) {
    const details = await provider.interactionDetails(req, res);
    if (details.uid !== uid) throw new Error("this page belongs to another sign-in");
    if (req.method === "GET" && action === undefined) {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(signInPage(uid));
      return;
    }
    if (req.method !== "POST") throw new Error("unexpected request");
    if (action === "/abort") {
      await provider.interactionFinished(req, res, {
        error: "access_denied",
        error_description: "The person cancelled",
      });
      return;
    }
    const person = people.get((await readForm(req)).get("person") ?? "");
    if (!person) throw new Error("no such person");
    const grant = new provider.Grant({ accountId: person.sub, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope));
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: person.sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  return {
    issuer,
    clientId,
    clientSecret,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
