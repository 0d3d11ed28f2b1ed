// The JWT page: the current token from set-auth-jwt and a fresh one, each verified against /jwks in the page.
import { useEffect, useState } from "react";
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from "jose";
import type { LatchkeyError } from "@latchkey/client";
import { useSession } from "@latchkey/client/react";
import { ErrorText, Notice } from "./shared.tsx";
import { auth } from "./client.ts";

const jwks = createRemoteJWKSet(new URL("/auth/jwks", location.origin));

export function Jwt() {
  const { jwt, data } = useSession(auth);
  const [token, setToken] = useState<string | null>(null);
  const [claims, setClaims] = useState<JWTPayload | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [error, setError] = useState<LatchkeyError | null>(null);
  // A fresh token from /auth/token belongs to the session that asked: gone with it (sign-out, deletion, expiry).
  const signedIn = data !== null;
  useEffect(() => {
    if (!signedIn) {
      setToken(null);
      setClaims(null);
    }
  }, [signedIn]);
  const current = signedIn ? (token ?? jwt) : null;
  useEffect(() => {
    if (!current) return;
    setClaims(null);
    setProblem(null);
    jwtVerify(current, jwks).then(
      (r) => setClaims(r.payload),
      (e: unknown) => setProblem(e instanceof Error ? e.message : String(e)),
    );
  }, [current]);
  return (
    <section>
      <h1>Your JWT</h1>
      <p>
        From the <code>set-auth-jwt</code> header of the last session check, or a fresh one from{" "}
        <code>/auth/token</code>.
      </p>
      <button
        type="button"
        onClick={async () => {
          const r = await auth.createToken();
          setError(r.error);
          if (r.data) setToken(r.data.token);
        }}
      >
        Get a fresh JWT
      </button>
      <ErrorText error={error} />
      {current ? <pre data-testid="jwt">{current}</pre> : <p>No JWT yet.</p>}
      {claims && (
        <Notice>
          <span data-testid="jwt-verified">
            Verified against /auth/jwks: subject {claims.sub}, expires{" "}
            {new Date((claims.exp ?? 0) * 1000).toISOString()}
          </span>
        </Notice>
      )}
      {problem && (
        <p className="error" role="alert">
          The signature could not be verified: {problem}
        </p>
      )}
    </section>
  );
}
