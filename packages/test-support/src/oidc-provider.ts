import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK, type JWTPayload } from "jose";

/** A person the test provider signs in. */
interface TestIdentity {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
}

/** What a tamper function may do to the ID token of the next token response. */
type IdTokenTamper = (
  claims: JWTPayload,
  sign: { rs256(claims: JWTPayload, header?: Record<string, unknown>): Promise<string> },
) => Promise<string>;

export const CLIENT_ID = "latchkey-test";
export const CLIENT_SECRET = "a-client-secret-that-is-long-enough-for-hs256-0123456789";

/**
 * panva's `oidc-provider` (OpenID Certified) on a loopback port: one confidential client, PKCE required, refresh
 * tokens, and a programmatic login + consent (no browser). A front server proxies every request to it and can
 * rewrite the ID token of a token response (`tamper`), to play a malicious or broken provider with the real keys.
 */
export interface TestOidcProvider {
  issuer: string;
  /** Who signs in on the next authorization (the "browser" of the provider). */
  login(identity: TestIdentity): void;
  /** Rewrites the ID token of token responses until reset with `tamper(null)`. */
  tamper(fn: IdTokenTamper | null): void;
  /** How many token requests the provider answered. */
  tokenRequests(): number;
  close(): Promise<void>;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on("data", (c: Buffer) => chunks.push(c));
    stream.on("end", () => resolve(Buffer.concat(chunks)));
    stream.on("error", reject);
  });
}

/**
 * Starts the provider. `redirectUris`: the callbacks the client may use. `conformIdTokenClaims` (oidc-provider's
 * default, off here unless asked): scope-requested claims such as `email` only from the UserInfo endpoint.
 */
export async function startTestOidcProvider(
  redirectUris: string[],
  options: { conformIdTokenClaims?: boolean } = {},
): Promise<TestOidcProvider> {
  const front = createServer();
  const port = await listen(front);
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const jwk: JWK = { ...(await exportJWK(privateKey)), kid: "test-key-1", alg: "RS256", use: "sig" };
  const signingKey = await importJWK(jwk, "RS256");
  const identities = new Map<string, TestIdentity>();
  let current: TestIdentity | null = null;
  let tamper: IdTokenTamper | null = null;
  let tokenCount = 0;

  const oidc = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    conformIdTokenClaims: options.conformIdTokenClaims ?? false,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ ...identities.get(sub), sub }),
    }),
    issueRefreshToken: async () => true,
    rotateRefreshToken: false,
    ttl: { AccessToken: 3600, IdToken: 3600, RefreshToken: 86_400, Interaction: 600, Session: 600, Grant: 3600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["oidc-test-cookie-key-0123456789"] },
  });
  const callback = oidc.callback();

  // The provider itself, on its own port, behind the front server (which keeps the Host, so the issuer matches).
  const inner = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith("/interaction/")) {
      try {
        const details = await oidc.interactionDetails(req, res);
        if (!current) throw new Error("no test identity logged in");
        identities.set(current.sub, current);
        const grant = new oidc.Grant({ accountId: current.sub, clientId: details.params.client_id as string });
        grant.addOIDCScope(String(details.params.scope));
        const grantId = await grant.save();
        await oidc.interactionFinished(
          req,
          res,
          { login: { accountId: current.sub }, consent: { grantId } },
          { mergeWithLastSubmission: false },
        );
      } catch (error) {
        res.statusCode = 500;
        res.end(String(error));
      }
      return;
    }
    callback(req, res);
  });
  const innerPort = await listen(inner);

  front.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req);
    const isToken = req.method === "POST" && req.url === "/token";
    const upstream = httpRequest(
      { host: "127.0.0.1", port: innerPort, method: req.method, path: req.url, headers: req.headers },
      async (answer) => {
        const bytes = await readBody(answer);
        let out = bytes;
        if (isToken) {
          tokenCount++;
          if (tamper && answer.statusCode === 200) {
            const json = JSON.parse(bytes.toString("utf8")) as { id_token?: string };
            if (json.id_token) {
              const claims = JSON.parse(Buffer.from(json.id_token.split(".")[1] as string, "base64url").toString());
              json.id_token = await tamper(claims as JWTPayload, {
                rs256: (c, header = {}) =>
                  new SignJWT(c).setProtectedHeader({ alg: "RS256", kid: "test-key-1", ...header }).sign(signingKey),
              });
            }
            out = Buffer.from(JSON.stringify(json));
          }
        }
        const headers = { ...answer.headers, "content-length": String(out.length) };
        res.writeHead(answer.statusCode ?? 500, headers);
        res.end(out);
      },
    );
    upstream.on("error", () => {
      res.statusCode = 502;
      res.end();
    });
    upstream.end(body);
  });

  return {
    issuer,
    login(identity) {
      current = identity;
    },
    tamper(fn) {
      tamper = fn;
    },
    tokenRequests: () => tokenCount,
    async close() {
      await new Promise((r) => front.close(r));
      await new Promise((r) => inner.close(r));
    },
  };
}

/**
 * Plays the browser at the provider: opens the authorization URL, logs in and consents (the identity given to
 * `login`), follows the provider's redirects with its cookies, and answers the redirect to the client's callback
 * (`redirect_uri?code=&state=&iss=`), which the caller delivers to Latchkey.
 */
export async function authorizeAt(authorizationUrl: string): Promise<URL> {
  const answer = await walkProvider(authorizationUrl);
  if (answer instanceof URL) return answer;
  throw new Error("the provider answered a form (response_mode=form_post): use formPostAt");
}

/**
 * As `authorizeAt`, for a `response_mode=form_post` flow: the provider answers an auto-submitting HTML form, whose
 * action (the client's callback) and fields are returned for the caller to POST as the browser would.
 */
export async function formPostAt(authorizationUrl: string): Promise<{ action: string; fields: URLSearchParams }> {
  const answer = await walkProvider(authorizationUrl);
  if (answer instanceof URL) throw new Error(`the provider redirected instead of posting a form: ${answer.search}`);
  const action = /<form[^>]*action="([^"]+)"/.exec(answer)?.[1];
  if (!action) throw new Error("the provider's page has no form");
  const fields = new URLSearchParams();
  for (const input of answer.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(input[0])?.[1];
    const value = /value="([^"]*)"/.exec(input[0])?.[1];
    if (name !== undefined && value !== undefined) fields.set(name, unescapeHtml(value));
  }
  return { action: unescapeHtml(action), fields };
}

function unescapeHtml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** Follows the provider's pages: the redirect that leaves the provider, or the HTML of a page it answers 200 with. */
async function walkProvider(authorizationUrl: string): Promise<URL | string> {
  const jar = new Map<string, string>();
  let next = new URL(authorizationUrl);
  const origin = next.origin;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await fetch(next, { redirect: "manual", headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = (pair as string).indexOf("=");
      jar.set((pair as string).slice(0, eq), (pair as string).slice(eq + 1));
    }
    const location = response.headers.get("location");
    if (!location && response.status === 200) return response.text();
    await response.arrayBuffer();
    if (!location) throw new Error(`the provider answered ${response.status} without a redirect`);
    next = new URL(location, next);
    if (next.origin !== origin) return next;
  }
  throw new Error("too many redirects at the provider");
}
