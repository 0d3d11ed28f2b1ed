"""Unit tests of app/latchkey.py with a fake Latchkey (httpx.MockTransport) and a fake clock.

Run: python3 -m unittest discover -s tests -t .   (the vitest journey in test/ runs them too)
"""

import asyncio
import json
import time
import unittest

import httpx
import jwt
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fastapi import HTTPException
from jwt.algorithms import OKPAlgorithm

from app.latchkey import ApiKeyVerifier, JwksCache, Latchkey, Settings

ISSUER = "https://auth.example"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def signing_key(kid: str):
    private = Ed25519PrivateKey.generate()
    jwk = json.loads(OKPAlgorithm.to_jwk(private.public_key()))
    jwk.update({"kid": kid, "alg": "EdDSA", "use": "sig"})
    return private, jwk


def token(private, kid: str, **claims) -> str:
    now = int(time.time())
    payload = {"sub": "user-1", "sid": "s-1", "iss": ISSUER, "aud": ISSUER, "iat": now, "exp": now + 60, **claims}
    return jwt.encode(payload, private, algorithm="EdDSA", headers={"kid": kid, "typ": "JWT"})


class FakeLatchkey:
    """Answers /jwks with `jwks` and /api-key/verify with `verdict(body)`, counting the calls."""

    def __init__(self) -> None:
        self.jwks: list[dict] = []
        self.jwks_calls = 0
        self.verify_calls = 0
        self.down = False  # /jwks answers 503
        self.hang = False  # /jwks never answers
        self.verdict = lambda body: {"valid": False, "error": {"code": "INVALID_API_KEY", "message": "no"}}

    async def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/auth/jwks":
            self.jwks_calls += 1
            if self.hang:
                await asyncio.Event().wait()
            if self.down:
                return httpx.Response(503, json={"code": "DATABASE_UNAVAILABLE", "message": "down"})
            return httpx.Response(200, json={"keys": self.jwks})
        if request.url.path == "/auth/api-key/verify":
            self.verify_calls += 1
            return httpx.Response(200, json=self.verdict(json.loads(request.content)))
        return httpx.Response(404)


def run(coroutine):
    return asyncio.run(coroutine)


class JwksTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeLatchkey()
        self.clock = Clock()
        self.client = httpx.AsyncClient(transport=httpx.MockTransport(self.fake.handler))
        self.cache = JwksCache(self.client, "http://latchkey/auth/jwks", 10, 300, clock=self.clock)

    def test_caches_known_kids_and_refetches_once_for_an_unknown_one(self) -> None:
        _, jwk = signing_key("k1")
        self.fake.jwks = [jwk]

        async def scenario():
            self.assertIsNotNone(await self.cache.key("k1"))
            self.assertIsNotNone(await self.cache.key("k1"))
            self.assertEqual(self.fake.jwks_calls, 1)
            # A rotation: the new kid appears in /jwks; the first token carrying it triggers one refetch.
            self.clock.now += 11
            _, jwk2 = signing_key("k2")
            self.fake.jwks = [jwk2, jwk]
            self.assertIsNotNone(await self.cache.key("k2"))
            self.assertEqual(self.fake.jwks_calls, 2)

        run(scenario())

    def test_forged_kids_refetch_at_most_once_per_interval(self) -> None:
        _, jwk = signing_key("k1")
        self.fake.jwks = [jwk]

        async def scenario():
            await self.cache.key("k1")
            self.clock.now += 11
            for i in range(20):
                self.assertIsNone(await self.cache.key(f"forged-{i}"))
            self.assertEqual(self.fake.jwks_calls, 2)

        run(scenario())

    def test_the_set_is_refreshed_after_its_max_age_so_deleted_keys_drop_out(self) -> None:
        _, jwk = signing_key("k1")
        self.fake.jwks = [jwk]

        async def scenario():
            await self.cache.key("k1")
            self.fake.jwks = []
            self.clock.now += 301
            # The request that notices the age is answered at once; the refresh it started drops the key.
            self.assertIsNotNone(await self.cache.key("k1"))
            await self.cache.settled()
            self.assertIsNone(await self.cache.key("k1"))

        run(scenario())

    def test_an_outage_keeps_known_keys_and_fetches_at_most_once_per_interval(self) -> None:
        _, jwk = signing_key("k1")
        self.fake.jwks = [jwk]

        async def scenario():
            self.assertIsNotNone(await self.cache.key("k1"))
            self.fake.down = True
            # Ten minutes of outage, a request every second: the known key keeps verifying.
            for _ in range(600):
                self.clock.now += 1
                self.assertIsNotNone(await self.cache.key("k1"))
                await self.cache.settled()
            # Past the max-age, one background attempt per 10 s interval: not one per request.
            self.assertLessEqual(self.fake.jwks_calls, 1 + 600 // 10)
            calls = self.fake.jwks_calls
            # Unknown kids during the outage: the first attempt fails (503 for that request), then none until the
            # interval has passed.
            self.clock.now += 10
            with self.assertRaises(httpx.HTTPError):
                await self.cache.key("forged-0")
            for i in range(1, 50):
                self.assertIsNone(await self.cache.key(f"forged-{i}"))
            self.assertEqual(self.fake.jwks_calls, calls + 1)

        run(scenario())

    def test_a_hanging_latchkey_delays_no_request_with_a_known_key_and_fetches_time_out(self) -> None:
        _, jwk = signing_key("k1")
        self.fake.jwks = [jwk]
        cache = JwksCache(self.client, "http://latchkey/auth/jwks", 10, 300, clock=self.clock, timeout_seconds=0.05)

        async def scenario():
            await cache.key("k1")
            self.fake.hang = True
            self.clock.now += 301
            # Answered from memory while the refresh hangs (the fake never answers it).
            self.assertIsNotNone(await cache.key("k1"))
            self.assertIsNotNone(await cache.key("k1"))
            await cache.settled()  # it gave up after its timeout
            self.assertEqual(self.fake.jwks_calls, 2)  # one refresh for both requests
            self.clock.now += 10
            with self.assertRaises((TimeoutError, asyncio.TimeoutError)):
                await cache.key("new-kid")  # an unknown kid waits for one fetch at most, which times out
            self.assertIsNotNone(await cache.key("k1"))

        run(scenario())


class UserFromJwtTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeLatchkey()
        self.private, jwk = signing_key("k1")
        self.fake.jwks = [jwk]
        settings = Settings("http://latchkey/auth", ISSUER, ISSUER, ("EdDSA",), 10, 300, 10)
        self.lk = Latchkey(settings, transport=httpx.MockTransport(self.fake.handler))

    def refused(self, value: str) -> str:
        with self.assertRaises(HTTPException) as caught:
            run(self.lk.user_from_jwt(value))
        self.assertEqual(caught.exception.status_code, 401)
        return caught.exception.detail["message"]

    def test_valid_tokens_keep_working_through_a_latchkey_outage_past_the_max_age(self) -> None:
        run(self.lk.user_from_jwt(token(self.private, "k1")))
        self.fake.down = True
        self.lk.jwks._fetched_at -= 3600  # an hour later: the set is long past its max-age
        user = run(self.lk.user_from_jwt(token(self.private, "k1")))
        self.assertEqual(user.id, "user-1")

    def test_a_valid_token_gives_the_user(self) -> None:
        user = run(self.lk.user_from_jwt(token(self.private, "k1", email="a@example.com", email_verified=True)))
        self.assertEqual((user.id, user.email, user.email_verified, user.session_id), ("user-1", "a@example.com", True, "s-1"))

    def test_expired_wrong_issuer_wrong_audience_and_alg_none_are_refused(self) -> None:
        self.assertIn("expired", self.refused(token(self.private, "k1", exp=int(time.time()) - 5)))
        self.assertIn("InvalidIssuer", self.refused(token(self.private, "k1", iss="https://evil.example")))
        self.assertIn("InvalidAudience", self.refused(token(self.private, "k1", aud="https://other.example")))
        unsigned = jwt.encode({"sub": "user-1"}, None, algorithm="none", headers={"kid": "k1"})
        self.assertIn("algorithm", self.refused(unsigned))
        other, _ = signing_key("k1")
        self.assertIn("InvalidSignature", self.refused(token(other, "k1")))
        self.assertIn("unknown key", self.refused(token(self.private, "k9")))
        self.assertIn("not a JWT", self.refused("not-a-token"))


class ApiKeyVerifierTest(unittest.TestCase):
    def setUp(self) -> None:
        self.fake = FakeLatchkey()
        self.clock = Clock()
        client = httpx.AsyncClient(transport=httpx.MockTransport(self.fake.handler))
        self.verifier = ApiKeyVerifier(client, "http://latchkey/auth/api-key/verify", 10, clock=self.clock)
        self.valid = {"valid": True, "apiKey": {"id": "k", "userId": "u", "remaining": None, "rateLimitMax": None}}

    def test_valid_answers_are_reused_until_the_ttl_ends(self) -> None:
        self.fake.verdict = lambda body: self.valid

        async def scenario():
            for _ in range(3):
                self.assertTrue((await self.verifier.verify("lk_a", {"reports": ["read"]}))["valid"])
            self.assertEqual(self.fake.verify_calls, 1)
            # Other permissions are another question.
            await self.verifier.verify("lk_a", {"reports": ["write"]})
            self.assertEqual(self.fake.verify_calls, 2)
            self.clock.now += 10
            await self.verifier.verify("lk_a", {"reports": ["read"]})
            self.assertEqual(self.fake.verify_calls, 3)

        run(scenario())

    def test_refusals_are_never_cached(self) -> None:
        async def scenario():
            self.assertFalse((await self.verifier.verify("lk_a", {}))["valid"])
            self.fake.verdict = lambda body: self.valid
            self.assertTrue((await self.verifier.verify("lk_a", {}))["valid"])
            self.assertEqual(self.fake.verify_calls, 2)

        run(scenario())

    def test_metered_keys_are_never_cached(self) -> None:
        metered = {"valid": True, "apiKey": {"id": "k", "userId": "u", "remaining": 5, "rateLimitMax": None}}
        self.fake.verdict = lambda body: metered

        async def scenario():
            await self.verifier.verify("lk_a", {})
            await self.verifier.verify("lk_a", {})
            self.assertEqual(self.fake.verify_calls, 2)

        run(scenario())


if __name__ == "__main__":
    unittest.main()
