import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A GitHub user as the test server serves it. */
interface GitHubTestUser {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
}

/**
 * A GitHub-shaped OAuth 2.0 server (plain OAuth, no OpenID Connect) on a loopback port: `/login/oauth/authorize`
 * (consents at once for the logged-in user), `/login/oauth/access_token` (checks the client secret, the code, the
 * redirect URI and the PKCE S256 verifier), `/user` and `/user/emails` (Bearer).
 */
export interface GitHubTestServer {
  url: string;
  clientId: string;
  clientSecret: string;
  login(user: GitHubTestUser): void;
  /** Token requests refused (wrong secret, code, redirect URI or verifier). */
  refusals(): number;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    req.on("data", (c: Buffer) => {
      text += c.toString("utf8");
    });
    req.on("end", () => resolve(text));
  });
}

export async function startGitHubTestServer(): Promise<GitHubTestServer> {
  const clientId = "Iv1.test-client";
  const clientSecret = "github-test-secret";
  const codes = new Map<string, { user: GitHubTestUser; challenge: string; redirectUri: string }>();
  const tokens = new Map<string, GitHubTestUser>();
  let current: GitHubTestUser | null = null;
  let refused = 0;
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (url.pathname === "/login/oauth/authorize") {
      const p = url.searchParams;
      if (p.get("client_id") !== clientId || p.get("code_challenge_method") !== "S256" || !current)
        return json(400, { error: "bad request" });
      const code = randomBytes(10).toString("hex");
      codes.set(code, { user: current, challenge: p.get("code_challenge")!, redirectUri: p.get("redirect_uri")! });
      const back = new URL(p.get("redirect_uri")!);
      back.searchParams.set("code", code);
      back.searchParams.set("state", p.get("state")!);
      res.writeHead(302, { location: back.toString() });
      return res.end();
    }
    if (url.pathname === "/login/oauth/access_token" && req.method === "POST") {
      const form = new URLSearchParams(await body(req));
      const grant = codes.get(form.get("code") ?? "");
      const verifier = form.get("code_verifier") ?? "";
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      if (
        form.get("client_id") !== clientId ||
        form.get("client_secret") !== clientSecret ||
        !grant ||
        grant.redirectUri !== form.get("redirect_uri") ||
        grant.challenge !== challenge
      ) {
        refused++;
        // GitHub answers refusals with 200 and an error body.
        return json(200, {
          error: "bad_verification_code",
          error_description: "The code passed is incorrect or expired.",
        });
      }
      codes.delete(form.get("code")!);
      const token = `gho_${randomBytes(16).toString("hex")}`;
      tokens.set(token, grant.user);
      return json(200, { access_token: token, token_type: "bearer", scope: "read:user,user:email" });
    }
    const user = tokens.get((req.headers.authorization ?? "").replace(/^Bearer /, ""));
    if (!user) return json(401, { message: "Bad credentials" });
    if (url.pathname === "/user")
      return json(200, {
        id: user.id,
        login: user.login,
        name: user.name,
        avatar_url: `https://avatars.example/${user.id}`,
      });
    if (url.pathname === "/user/emails")
      return json(
        200,
        user.emails.map((e) => ({ ...e, visibility: null })),
      );
    return json(404, { message: "Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clientId,
    clientSecret,
    login(user) {
      current = user;
    },
    refusals: () => refused,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
