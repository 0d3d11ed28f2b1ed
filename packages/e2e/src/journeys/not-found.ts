import { equal, match } from "../harness/assert.ts";
import { expectError, type E2eResponse } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";

function expectSecurityHeaders(res: E2eResponse, what: string, https: boolean): void {
  equal(res.headers.get("x-content-type-options"), "nosniff", `${what}: X-Content-Type-Options`);
  equal(res.headers.get("referrer-policy"), "no-referrer", `${what}: Referrer-Policy`);
  equal(res.headers.get("x-frame-options"), "DENY", `${what}: X-Frame-Options`);
  match(res.headers.get("content-security-policy"), /frame-ancestors 'none'/, `${what}: Content-Security-Policy`);
  match(res.headers.get("content-type"), /^application\/json/, `${what}: JSON body`);
  // Secure cookies (the default behind https) come with HSTS.
  if (https)
    match(res.headers.get("strict-transport-security"), /^max-age=31536000; includeSubDomains$/, `${what}: HSTS`);
}

/** Unknown paths, under the mount or not, answer the JSON error shape with every security header. */
export const notFoundJourney: Journey = {
  name: "unknown paths answer JSON 404 with security headers",
  async run({ client, target }) {
    const https = target.baseUrl.startsWith("https:");
    const get = await client.call("GET", "/no-such-endpoint");
    expectError(get, 404, "NOT_FOUND", "GET an unknown path under the mount");
    expectSecurityHeaders(get, "404 under the mount", https);

    const post = await client.call("POST", "/no-such-endpoint", { body: { email: "x@example.com" } });
    expectError(post, 404, "NOT_FOUND", "POST an unknown path under the mount");
    expectSecurityHeaders(post, "POST 404", https);

    const outside = await client.send("GET", `${client.baseUrl}/definitely/not/auth`);
    expectError(outside, 404, "NOT_FOUND", "GET a path outside the mount");
    expectSecurityHeaders(outside, "404 outside the mount", https);
  },
};
