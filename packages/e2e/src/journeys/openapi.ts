import { ok, match } from "../harness/assert.ts";
import { expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";

const CORE_PATHS = ["/sign-up/email", "/sign-in/email", "/sign-out", "/get-session"];

/**
 * The generated OpenAPI document lists the routes; the explorer page is served with a nonce CSP where the explorer
 * script is available (the optional `@scalar/api-reference` on Node, Bun and Deno), and elsewhere (edge runtimes
 * without `reference.scriptUrl`) `/reference` answers 404 saying how to enable it.
 */
export const openApiJourney: Journey = {
  name: "OpenAPI document and explorer are served",
  async run({ client }) {
    const res = await client.call("GET", "/openapi.json");
    const doc = expectStatus(res, 200, "GET /openapi.json") as {
      openapi?: string;
      info?: { title?: string };
      paths?: Record<string, unknown>;
    };
    match(doc.openapi, /^3\.1\./, "OpenAPI 3.1");
    ok(typeof doc.info?.title === "string", "the document has a title");
    for (const path of CORE_PATHS) ok(doc.paths?.[path], `the document lists ${path}`);
    // The load balancer's check: always served, on every runtime and store.
    const health = expectStatus(await client.call("GET", "/health"), 200, "GET /health") as { status?: string };
    ok(health.status === "ok", 'GET /health answers {status: "ok"}');

    const page = await client.call("GET", "/reference");
    if (page.status === 404) {
      const body = expectStatus(page, 404, "GET /reference") as { code?: string; message?: string };
      match(body.message, /@scalar\/api-reference.*reference\.scriptUrl/, "the 404 says how to enable the explorer");
      return;
    }
    expectStatus(page, 200, "GET /reference");
    match(page.headers.get("content-type"), /^text\/html/, "the explorer is an HTML page");
    match(
      page.headers.get("content-security-policy"),
      /script-src 'self' 'nonce-[A-Za-z0-9_-]+'/,
      "the explorer page has a nonce CSP",
    );
    match(page.text, /openapi\.json/, "the explorer loads the document");
  },
};
