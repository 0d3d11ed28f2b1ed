"""Latchkey for FastAPI: `Depends(current_user)` for JWTs and `Depends(require_api_key(...))` for API keys.

Written for this example and kept small: read it, copy it, change it. Configuration comes from the environment:

  LATCHKEY_URL             where Latchkey's endpoints live, base path included (http://127.0.0.1:3000/auth)
  LATCHKEY_ISSUER          the JWT `iss` to require: Latchkey's `baseUrl` (its public URL) unless jwt({ issuer })
                           says otherwise (default: the origin of LATCHKEY_URL)
  LATCHKEY_AUDIENCE        the JWT `aud` to require (default: LATCHKEY_ISSUER, like Latchkey's)
  LATCHKEY_JWT_ALGORITHMS  accepted algorithms, comma-separated (default EdDSA, Latchkey's default)
  JWKS_MIN_REFETCH_SECONDS the JWKS is fetched at most this often, for unknown kids or a refresh (default 10)
  JWKS_TIMEOUT_SECONDS     a JWKS fetch gives up after this long (default 2); known keys keep working meanwhile
  API_KEY_CACHE_SECONDS    how long a *valid* verify answer is reused (default 10; 0 turns the cache off)
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

import httpx
import jwt
from fastapi import Depends, HTTPException, status
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer


@dataclass(frozen=True)
class Settings:
    latchkey_url: str
    issuer: str
    audience: str
    algorithms: tuple[str, ...]
    jwks_min_refetch_seconds: float
    jwks_max_age_seconds: float
    api_key_cache_seconds: float
    jwks_timeout_seconds: float = 2.0

    @staticmethod
    def from_env() -> "Settings":
        url = os.environ.get("LATCHKEY_URL", "http://127.0.0.1:3000/auth").rstrip("/")
        parts = urlsplit(url)
        issuer = os.environ.get("LATCHKEY_ISSUER", f"{parts.scheme}://{parts.netloc}")
        return Settings(
            latchkey_url=url,
            issuer=issuer,
            audience=os.environ.get("LATCHKEY_AUDIENCE", issuer),
            algorithms=tuple(a.strip() for a in os.environ.get("LATCHKEY_JWT_ALGORITHMS", "EdDSA").split(",") if a.strip()),
            jwks_min_refetch_seconds=float(os.environ.get("JWKS_MIN_REFETCH_SECONDS", "10")),
            # Latchkey answers /jwks with Cache-Control: max-age=60 (jwt({ keyCacheTtl }), 60 s by default).
            jwks_max_age_seconds=60.0,
            jwks_timeout_seconds=float(os.environ.get("JWKS_TIMEOUT_SECONDS", "2")),
            api_key_cache_seconds=float(os.environ.get("API_KEY_CACHE_SECONDS", "10")),
        )


def unauthorized(code: str, message: str, scheme: str = "Bearer") -> HTTPException:
    return HTTPException(status.HTTP_401_UNAUTHORIZED, {"code": code, "message": message}, {"WWW-Authenticate": scheme})


def unavailable() -> HTTPException:
    # Latchkey could not be asked: that is not the caller's fault, and says nothing about the credential.
    return HTTPException(
        status.HTTP_503_SERVICE_UNAVAILABLE,
        {"code": "AUTH_UNAVAILABLE", "message": "The auth service did not answer"},
        {"Retry-After": "5"},
    )


class JwksCache:
    """Latchkey's public keys by kid, fetched from /jwks, kept through an outage (as jose's remote JWK set does).

    - A known kid is always answered from memory. Once the set is older than the max-age Latchkey sends, a refresh
      starts in the background (deleted keys drop out when it lands); the request does not wait for it, and a
      failed or hanging refresh changes nothing: the keys already known keep verifying tokens.
    - An unknown kid refetches the set (a rotation publishes a new key before tokens carry it), at most once per
      `min_refetch_seconds` counted from the last *attempt*, so neither tokens with made-up kids nor an outage
      turn this service into a flood against Latchkey. Requests meanwhile share the one fetch under way.
    - Every fetch gives up after `timeout_seconds`: with Latchkey hanging, no request queues behind it for long.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        url: str,
        min_refetch_seconds: float,
        max_age_seconds: float,
        clock: Callable[[], float] = time.monotonic,
        timeout_seconds: float = 2.0,
    ):
        self._clock = clock
        self._client = client
        self._url = url
        self._min_refetch = min_refetch_seconds
        self._max_age = max_age_seconds
        self._timeout = timeout_seconds
        self._keys: dict[str, jwt.PyJWK] = {}
        self._fetched_at = float("-inf")
        self._attempted_at = float("-inf")
        self._inflight: asyncio.Task[None] | None = None
        self.fetches = 0

    async def _fetch(self) -> None:
        self.fetches += 1
        response = await asyncio.wait_for(self._client.get(self._url), self._timeout)
        response.raise_for_status()
        keys: dict[str, jwt.PyJWK] = {}
        for jwk in response.json().get("keys", []):
            if jwk.get("use", "sig") != "sig" or "kid" not in jwk:
                continue
            try:
                keys[jwk["kid"]] = jwt.PyJWK(jwk)
            except jwt.PyJWTError:
                continue  # an algorithm this PyJWT cannot use
        self._keys = keys
        self._fetched_at = self._clock()

    def _start_refresh(self) -> asyncio.Task[None] | None:
        """The fetch under way, or a new one when the last attempt is at least `min_refetch_seconds` old."""
        if self._inflight is not None and not self._inflight.done():
            return self._inflight
        if self._clock() - self._attempted_at < self._min_refetch:
            return None
        self._attempted_at = self._clock()
        self._inflight = asyncio.ensure_future(self._fetch())
        # A background refresh that fails is not an error of any request: the known keys stay.
        self._inflight.add_done_callback(lambda task: task.cancelled() or task.exception())
        return self._inflight

    async def settled(self) -> None:
        """Waits for the fetch under way, if any (tests; a shutdown)."""
        if self._inflight is not None:
            await asyncio.gather(self._inflight, return_exceptions=True)

    async def key(self, kid: str) -> jwt.PyJWK | None:
        known = self._keys.get(kid)
        if known is not None:
            if self._clock() - self._fetched_at >= self._max_age:
                self._start_refresh()
            return known
        fetch = self._start_refresh()
        if fetch is None:
            return None
        # Raises httpx.HTTPError or TimeoutError when Latchkey cannot be asked: the caller answers 503.
        await asyncio.shield(fetch)
        return self._keys.get(kid)


class ApiKeyVerifier:
    """Asks Latchkey's POST /api-key/verify, with a short cache of *valid* answers only.

    A refused key is never cached, so a key that was just created or re-enabled works at once; a revoked key keeps
    working here for at most `cache_seconds` (say so to whoever revokes keys). Keys with a quota or a per-key rate
    limit are never cached: every use has to reach Latchkey to be counted.
    """

    def __init__(
        self,
        client: httpx.AsyncClient,
        url: str,
        cache_seconds: float,
        max_entries: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ):
        self._clock = clock
        self._client = client
        self._url = url
        self._ttl = cache_seconds
        self._max = max_entries
        self._valid: dict[str, tuple[float, dict[str, Any]]] = {}
        self.calls = 0

    async def verify(self, key: str, permissions: dict[str, list[str]]) -> dict[str, Any]:
        # The cache is keyed by a hash of key and permissions: the plaintext key is not kept in memory longer than needed.
        entry = hashlib.sha256(json.dumps([key, permissions], sort_keys=True).encode()).hexdigest()
        cached = self._valid.get(entry)
        if cached is not None and cached[0] > self._clock():
            return cached[1]
        self._valid.pop(entry, None)
        self.calls += 1
        response = await self._client.post(self._url, json={"key": key, "permissions": permissions})
        response.raise_for_status()
        answer = response.json()
        api_key = answer.get("apiKey") or {}
        metered = api_key.get("remaining") is not None or api_key.get("rateLimitMax") is not None
        if answer.get("valid") is True and self._ttl > 0 and not metered:
            if len(self._valid) >= self._max:
                self._valid.pop(next(iter(self._valid)))
            self._valid[entry] = (self._clock() + self._ttl, answer)
        return answer


# What each refusal of /api-key/verify means for the caller (the statuses Latchkey's own requireApiKey uses).
API_KEY_STATUS = {
    "INSUFFICIENT_PERMISSIONS": status.HTTP_403_FORBIDDEN,
    "RATE_LIMITED": status.HTTP_429_TOO_MANY_REQUESTS,
    "USAGE_EXCEEDED": status.HTTP_429_TOO_MANY_REQUESTS,
}


@dataclass(frozen=True)
class User:
    id: str
    email: str | None
    email_verified: bool
    session_id: str
    claims: dict[str, Any]


@dataclass(frozen=True)
class ApiKey:
    id: str
    user_id: str
    name: str | None
    permissions: dict[str, list[str]]


class Latchkey:
    """The per-application state: one HTTP client, the key cache and the verify cache."""

    def __init__(self, settings: Settings, transport: httpx.AsyncBaseTransport | None = None):
        self.settings = settings
        self.client = httpx.AsyncClient(timeout=httpx.Timeout(5.0), transport=transport)
        self.jwks = JwksCache(
            self.client,
            f"{settings.latchkey_url}/jwks",
            settings.jwks_min_refetch_seconds,
            settings.jwks_max_age_seconds,
            timeout_seconds=settings.jwks_timeout_seconds,
        )
        self.api_keys = ApiKeyVerifier(self.client, f"{settings.latchkey_url}/api-key/verify", settings.api_key_cache_seconds)

    async def close(self) -> None:
        await self.client.aclose()

    async def user_from_jwt(self, token: str) -> User:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise unauthorized("INVALID_JWT", "The token is not a JWT") from None
        # Pin the algorithm before choosing a key: `none` and HS256-with-the-public-key never get that far.
        if header.get("alg") not in self.settings.algorithms or not isinstance(header.get("kid"), str):
            raise unauthorized("INVALID_JWT", "The token's algorithm or key id is not accepted")
        try:
            key = await self.jwks.key(header["kid"])
        except (httpx.HTTPError, TimeoutError, asyncio.TimeoutError):
            raise unavailable() from None
        if key is None:
            raise unauthorized("INVALID_JWT", "The token was signed by an unknown key")
        try:
            claims = jwt.decode(
                token,
                key.key,
                algorithms=list(self.settings.algorithms),
                issuer=self.settings.issuer,
                audience=self.settings.audience,
                options={"require": ["exp", "iat", "iss", "aud", "sub"]},
            )
        except jwt.ExpiredSignatureError:
            raise unauthorized("INVALID_JWT", "The token has expired") from None
        except jwt.PyJWTError as error:
            raise unauthorized("INVALID_JWT", f"The token is not valid: {type(error).__name__}") from None
        return User(
            id=claims["sub"],
            email=claims.get("email"),
            email_verified=bool(claims.get("email_verified", False)),
            session_id=claims.get("sid", ""),
            claims=claims,
        )

    async def api_key(self, key: str, permissions: dict[str, list[str]]) -> ApiKey:
        try:
            answer = await self.api_keys.verify(key, permissions)
        except httpx.HTTPError:
            raise unavailable() from None
        if answer.get("valid") is not True:
            error = answer.get("error") or {}
            code = error.get("code", "INVALID_API_KEY")
            raise HTTPException(
                API_KEY_STATUS.get(code, status.HTTP_401_UNAUTHORIZED),
                {"code": code, "message": error.get("message", "The API key is not valid")},
            )
        view = answer["apiKey"]
        return ApiKey(id=view["id"], user_id=view["userId"], name=view.get("name"), permissions=view.get("permissions") or {})


_latchkey: Latchkey | None = None


def latchkey() -> Latchkey:
    """The application's Latchkey (a dependency itself, so tests can override it)."""
    global _latchkey
    if _latchkey is None:
        _latchkey = Latchkey(Settings.from_env())
    return _latchkey


_bearer = HTTPBearer(auto_error=False)
_api_key_header = APIKeyHeader(name="x-api-key", auto_error=False)


async def current_user(
    credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),
    lk: Latchkey = Depends(latchkey),
) -> User:
    """`user: User = Depends(current_user)`: the caller of a Latchkey JWT in `Authorization: Bearer`."""
    if credentials is None:
        raise unauthorized("UNAUTHENTICATED", "A Latchkey JWT is required (Authorization: Bearer <token>)")
    return await lk.user_from_jwt(credentials.credentials)


def require_api_key(permissions: dict[str, list[str]]) -> Callable[..., Awaitable[ApiKey]]:
    """`key: ApiKey = Depends(require_api_key({"reports": ["read"]}))`: a key in `x-api-key` with those permissions."""

    async def dependency(key: str | None = Depends(_api_key_header), lk: Latchkey = Depends(latchkey)) -> ApiKey:
        if not key:
            raise unauthorized("INVALID_API_KEY", "An API key is required (x-api-key header)", "ApiKey")
        return await lk.api_key(key, permissions)

    return dependency
