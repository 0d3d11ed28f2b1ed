import { decodeProtectedHeader } from "jose";
import { AuthError } from "../errors/errors.ts";
import type { Clock } from "../ports/clock.ts";
import type { KeySource } from "./key-source.ts";
import type { JwsAlgorithm, JwtClaims, JwtHeader, JwtSigner, JwtSignerFactory, PublicJwk } from "./options.ts";
import { PublicKeySet, toPublicJwk } from "./signing.ts";

function misconfigured(message: string, cause?: unknown): AuthError {
  return new AuthError("INTERNAL_ERROR", `jwt.signerFactory: ${message}`, cause === undefined ? {} : { cause });
}

/**
 * Keys from a custom signer (e.g. a KMS). The signer is built once, on first use (a failed build is retried
 * on the next call); its public keys are cached for `keyCacheTtl` like stored keys. Every token it returns is
 * checked to carry the header Latchkey asked for, and its kid must be published, so it can be verified.
 *
 * @example
 * const source = new CustomSignerSource(factory, "ES256", clock, 60_000);
 * const token = await source.sign(claims);
 */
export class CustomSignerSource implements KeySource {
  private signer: Promise<JwtSigner> | null = null;
  private cached: { keys: PublicKeySet; refreshAt: number } | null = null;
  private inflight: Promise<PublicKeySet> | null = null;

  constructor(
    private readonly factory: JwtSignerFactory,
    private readonly alg: JwsAlgorithm,
    private readonly clock: Clock,
    private readonly ttlMs: number,
  ) {}

  async sign(payload: JwtClaims): Promise<string> {
    const signer = await this.build();
    const kid = await signer.currentKid();
    if (typeof kid !== "string" || kid === "") throw misconfigured("currentKid() must return a non-empty string");
    if (!(await this.publicKeys()).has(kid) && !(await this.refresh()).has(kid)) {
      throw misconfigured(`key "${kid}" is not among publicKeys(), so its tokens could not be verified`);
    }
    const header: JwtHeader = { alg: this.alg, kid, typ: "JWT" };
    const token = await signer.sign({ header, payload });
    let signed: ReturnType<typeof decodeProtectedHeader>;
    try {
      if (typeof token !== "string" || token.split(".").length !== 3) throw new Error("not a compact JWS");
      signed = decodeProtectedHeader(token);
    } catch (cause) {
      throw misconfigured("sign() must return a compact JWS (header.payload.signature)", cause);
    }
    if (signed.alg !== header.alg || signed.kid !== header.kid || signed.typ !== header.typ) {
      throw misconfigured("sign() returned a token whose header differs from the one it was given");
    }
    return token;
  }

  async publicKeys(): Promise<PublicKeySet> {
    if (this.cached && this.clock.now() < this.cached.refreshAt) return this.cached.keys;
    return this.refresh();
  }

  refresh(): Promise<PublicKeySet> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  async rotate(): Promise<{ kid: string }> {
    throw new AuthError("INVALID_REQUEST", "jwt.signerFactory manages its own keys: rotate them in the signer");
  }

  private build(): Promise<JwtSigner> {
    if (!this.signer) {
      const building = Promise.resolve()
        .then(() => this.factory({ alg: this.alg, clock: this.clock }))
        .then((signer) => {
          if (
            !signer ||
            typeof signer.sign !== "function" ||
            typeof signer.publicKeys !== "function" ||
            typeof signer.currentKid !== "function"
          ) {
            throw misconfigured("the factory must return { currentKid(), sign(), publicKeys() }");
          }
          return signer;
        });
      this.signer = building;
      building.catch(() => {
        if (this.signer === building) this.signer = null;
      });
    }
    return this.signer;
  }

  private async load(): Promise<PublicKeySet> {
    const listed = await (await this.build()).publicKeys();
    if (!Array.isArray(listed)) throw misconfigured("publicKeys() must return an array of JWKs");
    const keys: PublicJwk[] = [];
    for (const jwk of listed) {
      // Whitelisted members only: a signer that hands back private parts never leaks them.
      const pub = jwk !== null && typeof jwk === "object" ? toPublicJwk(jwk, jwk.kid, this.alg) : null;
      if (!pub) throw misconfigured("every public key needs kty and kid");
      keys.push(pub);
    }
    this.cached = { keys: new PublicKeySet(keys, this.cached?.keys ?? null), refreshAt: this.clock.now() + this.ttlMs };
    return this.cached.keys;
  }
}
