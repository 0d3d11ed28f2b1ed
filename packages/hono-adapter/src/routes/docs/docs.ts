import { Scalar } from "@scalar/hono-api-reference";
import { AuthError, base64url, webCryptoRandom } from "@latchkey/core";
import { loadScalarScript } from "#scalar-script";
import type { AuthApp } from "../define.ts";
import { errorResponse } from "../../http/errors.ts";

export interface DocsOptions {
  /** Title of the document and the explorer page. */
  title: string;
  version: string;
  /** Where the explorer loads its script; default: the copy this sub-app serves at `reference/scalar.js`. */
  scriptUrl?: string;
  /** The session cookie's name (`__Host-latchkey.session`; `__Secure-latchkey.session` with a cookie domain; `latchkey.session` when cookies are not secure). */
  cookieName: string;
  /** `baseUrl`'s origin: the document's first server is this origin plus the path the sub-app is mounted at. */
  baseOrigin: string;
}

/** One line per tag, listed at the top of the document (only the tags of installed features). */
const TAG_DESCRIPTIONS: Record<string, string> = {
  "Email and password": "Sign-up, sign-in, sign-out, the current session and password changes.",
  Sessions: "The signed-in user's sessions (devices): list them, sign one out, every other one, or all.",
  Account: "Profile updates, adding or checking a password, and account deletion.",
  "Email verification": "Verification links sent by email.",
  "Email OTP": "One-time codes sent by email: sign-in, verification, password reset and email change.",
  "Social sign-in":
    "Sign-in with OAuth 2.0 and OpenID Connect providers, and the identities linked to the signed-in user.",
  JWT: "JSON Web Tokens for the current session and the public keys that verify them.",
  "API keys": "Keys for scripts and services, owned by a user.",
  Health: "Readiness of the service and its database, for load balancers.",
};

const EXPLORER_MISSING =
  "The API explorer is not enabled: install the optional peer dependency @scalar/api-reference (npm install @scalar/api-reference) on Node, Bun or Deno, or set reference.scriptUrl to a copy of its browser/standalone.js you host (edge runtimes). /openapi.json works without it.";

/** `/openapi.json` (generated from the route schemas) and the Scalar explorer at `/reference`, offline. */
export function registerDocsRoutes(app: AuthApp, options: DocsOptions): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "sessionCookie", {
    type: "apiKey",
    in: "cookie",
    name: options.cookieName,
    description: "The session cookie set by sign-in. Cookie-authenticated writes must come from a trusted `Origin`.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "The session token from `credentials.token`.",
  });
  const usedTags = new Set(
    app.openAPIRegistry.definitions.flatMap((d) => (d.type === "route" ? (d.route.tags ?? []) : [])),
  );
  app.doc31("/openapi.json", (c) => {
    // Where this document was asked for tells where the sub-app is mounted (`/auth`, `/api/auth`, or `` at the root).
    const mount = c.req.path.slice(0, -"/openapi.json".length);
    return {
      openapi: "3.1.0",
      info: {
        title: options.title,
        version: options.version,
        description:
          "Latchkey authentication API. Errors are JSON `{code, message}` with the status listed per operation.",
        license: { name: "MIT", identifier: "MIT" },
        contact: { name: "Latchkey", url: "https://github.com/latchkey/latchkey" },
      },
      servers: [
        { url: `${options.baseOrigin}${mount}`, description: "`baseUrl` and the path the API is mounted at" },
        ...(mount === "" ? [] : [{ url: mount, description: "The same path on the origin serving this document" }]),
      ],
      tags: Object.entries(TAG_DESCRIPTIONS)
        .filter(([name]) => usedTags.has(name))
        .map(([name, description]) => ({ name, description })),
    };
  });

  app.get("/reference/scalar.js", async () => {
    const script = await loadScalarScript();
    if (script === null) return errorResponse(new AuthError("NOT_FOUND", EXPLORER_MISSING));
    return new Response(script, {
      headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" },
    });
  });

  app.get("/reference", async (c, next) => {
    // Without a script to load, the page would be blank: say what to install instead.
    if (options.scriptUrl === undefined && (await loadScalarScript()) === null)
      return errorResponse(new AuthError("NOT_FOUND", EXPLORER_MISSING));
    const nonce = base64url(webCryptoRandom.bytes(16));
    const page = Scalar({
      url: "openapi.json",
      cdn: options.scriptUrl ?? "reference/scalar.js",
      nonce,
      pageTitle: options.title,
      withDefaultFonts: false,
      // Fully offline: no hosted client, developer toolbar, agent, MCP or telemetry (they call Scalar's services).
      hideClientButton: true,
      showDeveloperTools: "never",
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
    });
    const response = await page(c as never, next);
    const res = response ?? c.res;
    res.headers.set(
      "content-security-policy",
      `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`,
    );
    res.headers.set("cache-control", "no-store");
    return res;
  });
}
