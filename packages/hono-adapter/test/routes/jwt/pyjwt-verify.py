"""Verifies a Latchkey JWT with PyJWT, outside the JavaScript stack.

Usage: pyjwt-verify.py <jwks_url> <token> <alg> <issuer> <audience>
Fetches the JWKS over HTTP, picks the key by kid, verifies signature, exp, iss and aud, prints the claims.
Exit 3 when PyJWT is missing, 1 when verification fails.
"""
import json
import sys

try:
    import jwt
except ImportError:
    print("PyJWT (python3-jwt) is not installed", file=sys.stderr)
    sys.exit(3)

jwks_url, token, alg, issuer, audience = sys.argv[1:6]
try:
    key = jwt.PyJWKClient(jwks_url, cache_keys=False).get_signing_key_from_jwt(token)
    claims = jwt.decode(token, key.key, algorithms=[alg], audience=audience, issuer=issuer,
                        options={"require": ["exp", "iat", "iss", "aud", "sub"]})
except Exception as error:  # noqa: BLE001 - any failure is a verification failure here
    print(f"{type(error).__name__}: {error}", file=sys.stderr)
    sys.exit(1)
print(json.dumps(claims))
