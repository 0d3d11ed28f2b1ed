import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import { equal, match, ok } from "../harness/assert.ts";
import { expectError, expectStatus } from "../harness/client.ts";
import type { Journey } from "../harness/journey.ts";
import { signUpWithPassword } from "../harness/sign-up.ts";

/** A session exchanged for a JWT at `/token` verifies with jose against `/jwks`; a tampered one does not. */
export const jwtJourney: Journey = {
  name: "JWT from /token verifies against /jwks (jwt plugin)",
  requiresPaths: ["/token", "/jwks"],
  async run(context) {
    const { client, target } = context;
    expectError(await client.call("POST", "/token"), 401, "INVALID_CREDENTIALS", "/token without a session");

    const user = await signUpWithPassword(context, "jwt");
    const session = expectStatus(
      await client.call("GET", "/get-session", { bearer: user.token }),
      200,
      "get-session",
    ) as { session: { id: string } };
    const { token } = expectStatus(await client.call("POST", "/token", { bearer: user.token }), 200, "POST /token") as {
      token: string;
    };
    match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, "/token returns a compact JWS");

    const jwksRes = await client.call("GET", "/jwks");
    const jwks = expectStatus(jwksRes, 200, "GET /jwks") as JSONWebKeySet;
    ok(jwks.keys.length >= 1, "the JWKS has a key");
    // Cacheable for the key cache lifetime, not marked public (review fix 19).
    match(jwksRes.headers.get("cache-control"), /^max-age=\d+$/, "the JWKS is cacheable for keyCacheTtl");
    for (const key of jwks.keys) ok(!("d" in key), "the JWKS holds public keys only");

    const header = decodeProtectedHeader(token);
    equal(header.typ, "JWT", "typ is JWT");
    ok(
      jwks.keys.some((k) => k.kid === header.kid),
      "the token's kid is in the JWKS",
    );
    const keySet = createLocalJWKSet(jwks);
    const { payload } = await jwtVerify(token, keySet, { issuer: target.baseUrl, audience: target.baseUrl });
    equal(payload.sub, user.userId, "sub is the user id");
    equal(payload.sid, session.session.id, "sid is the session id");
    equal(payload.email, user.email, "email claim");

    const [h, p, s] = token.split(".") as [string, string, string];
    const tampered = `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
    let rejected = false;
    try {
      await jwtVerify(tampered, keySet);
    } catch {
      rejected = true;
    }
    ok(rejected, "a tampered signature does not verify");

    const withHeader = await client.call("GET", "/get-session", { bearer: user.token });
    const fromHeader = withHeader.headers.get("set-auth-jwt");
    ok(fromHeader, "get-session carries set-auth-jwt");
    const verified = await jwtVerify(fromHeader, keySet, { issuer: target.baseUrl, audience: target.baseUrl });
    equal(verified.payload.sub, user.userId, "the set-auth-jwt token is the user's");
  },
};
