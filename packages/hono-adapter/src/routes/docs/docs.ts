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
}

const EXPLORER_MISSING =
  "The API explorer is not enabled: install the optional peer dependency @scalar/api-reference (npm install @scalar/api-reference) on Node, Bun or Deno, or set reference.scriptUrl to a copy of its browser/standalone.js you host (edge runtimes). /openapi.json works without it.";

/** `/openapi.json` (generated from the route schemas) and the Scalar explorer at `/reference`, offline. */
export function registerDocsRoutes(app: AuthApp, options: DocsOptions): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "sessionCookie", { type: "apiKey", in: "cookie", name: "__Secure-latchkey.session", description: "The session cookie (`latchkey.session` when cookies are not secure)." });
  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", { type: "http", scheme: "bearer", description: "The session token from `credentials.token`." });
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: options.title, version: options.version, description: "Latchkey authentication API. Paths are relative to where the host mounts the sub-app (usually `/auth`)." },
  });

  app.get("/reference/scalar.js", async () => {
    const script = await loadScalarScript();
    if (script === null) return errorResponse(new AuthError("NOT_FOUND", EXPLORER_MISSING));
    return new Response(script, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=86400" } });
  });

  app.get("/reference", async (c, next) => {
    // Without a script to load, the page would be blank: say what to install instead.
    if (options.scriptUrl === undefined && (await loadScalarScript()) === null) return errorResponse(new AuthError("NOT_FOUND", EXPLORER_MISSING));
    const nonce = base64url(webCryptoRandom.bytes(16));
    const page = Scalar({ url: "openapi.json", cdn: options.scriptUrl ?? "reference/scalar.js", nonce, pageTitle: options.title, withDefaultFonts: false, hideClientButton: true });
    const response = await page(c as never, next);
    const res = response ?? c.res;
    res.headers.set("content-security-policy", `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'`);
    res.headers.set("cache-control", "no-store");
    return res;
  });
}
