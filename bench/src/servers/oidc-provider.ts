import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Adapter, type AdapterPayload } from "oidc-provider";
import { BENCH_CLIENT_ID, BENCH_CLIENT_SECRET } from "./social-client.ts";

/**
 * The local OpenID provider of the `social-callback` scenarios: panva's `oidc-provider` (OpenID Certified) on
 * loopback, in its own process (`oidc-provider-server.ts`) so its CPU is neither library's. One confidential client
 * (`client_secret_post`), PKCE required, a programmatic login and consent (no browser), authorization codes valid
 * 10 minutes (its default is 1) so a pool of flows seeded before a window stays valid through it.
 */

/** The subject's email (verified): both libraries read the profile from the ID token alone. */
const subjectEmail = (sub: string) => `${sub}@social.bench.test`;

export interface BenchOidcProvider {
  issuer: string;
  close(): Promise<void>;
}

interface Stored {
  payload: AdapterPayload;
  expiresAt: number;
}

/**
 * oidc-provider's own memory adapter keeps at most 1,000 entries (an LRU): a pool of thousands of flows (each an
 * interaction, a session, a grant and a code) would evict the first codes before they are used. A plain map with
 * the same expiry instead; expired entries are dropped when read.
 */
function mapAdapter(): (name: string) => Adapter {
  const rows = new Map<string, Stored>();
  const sessionsByUid = new Map<string, string>();
  const read = (key: string): AdapterPayload | undefined => {
    const row = rows.get(key);
    if (!row) return undefined;
    if (row.expiresAt <= Date.now()) {
      rows.delete(key);
      return undefined;
    }
    return row.payload;
  };
  return (name) => {
    const key = (id: string) => `${name}:${id}`;
    return {
      async upsert(id, payload, expiresIn) {
        rows.set(key(id), { payload, expiresAt: expiresIn === undefined ? Infinity : Date.now() + expiresIn * 1000 });
        if (name === "Session" && payload.uid) sessionsByUid.set(payload.uid, id);
      },
      async find(id) {
        return read(key(id));
      },
      async findByUid(uid) {
        const id = sessionsByUid.get(uid);
        return id === undefined ? undefined : read(key(id));
      },
      async findByUserCode() {
        return undefined;
      },
      async consume(id) {
        const payload = read(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      async destroy(id) {
        const payload = read(key(id));
        if (name === "Session" && payload?.uid) sessionsByUid.delete(payload.uid);
        rows.delete(key(id));
      },
      async revokeByGrantId(grantId) {
        // A replayed code revokes what its grant issued (rare: a scan is fine).
        for (const [k, row] of rows) if (row.payload.grantId === grantId) rows.delete(k);
      },
    };
  };
}

/**
 * Starts the provider on `port` (0: any free port). `redirectUris`: the callbacks of both servers. The login is
 * programmatic: the interaction page (`/interaction/<uid>?sub=<subject>`) signs in the subject its query names and
 * grants the scopes asked for.
 */
export async function startBenchOidcProvider(port: number, redirectUris: string[]): Promise<BenchOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const jwk = { ...privateKey.export({ format: "jwk" }), kid: "bench-key-1", alg: "RS256", use: "sig" };
  const oidc = new Provider(issuer, {
    adapter: mapAdapter(),
    clients: [
      {
        client_id: BENCH_CLIENT_ID,
        client_secret: BENCH_CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    // The email claims in the ID token (not only at the userinfo endpoint): both libraries read the profile from the
    // verified ID token and neither calls userinfo.
    conformIdTokenClaims: false,
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({ sub, email: subjectEmail(sub), email_verified: true, name: "Bench User" }),
    }),
    ttl: {
      AuthorizationCode: 600,
      AccessToken: 3600,
      IdToken: 3600,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["bench-oidc-cookie-key-0123456789abcdef"] },
  });
  const callback = oidc.callback();
  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith("/interaction/")) {
      callback(req, res);
      return;
    }
    try {
      const sub = new URL(req.url, issuer).searchParams.get("sub");
      if (!sub) throw new Error("the interaction names no subject (?sub=)");
      const details = await oidc.interactionDetails(req, res);
      const grant = new oidc.Grant({ accountId: sub, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await oidc.interactionFinished(
        req,
        res,
        { login: { accountId: sub }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  return {
    issuer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
