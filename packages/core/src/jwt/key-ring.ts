import { AuthError } from "../errors/errors.ts";
import { randomId } from "../crypto/crypto.ts";
import type { Clock, Random } from "../ports/clock.ts";
import type { JwkRecord } from "../ports/records.ts";
import type { JwkStore } from "../ports/store.ts";
import { KeyEnvelope } from "./key-envelope.ts";
import type { KeySource } from "./key-source.ts";
import type { JwsAlgorithm, JwtClaims, PublicJwk } from "./options.ts";
import { generateSigningKey, LocalSigner, PublicKeySet, toPublicJwk } from "./signing.ts";

export interface StoredKeyRingOptions {
  store: JwkStore;
  clock: Clock;
  random: Random;
  alg: JwsAlgorithm;
  /** Opens sealed keys (always) and seals new ones (when `encrypt`). */
  envelope: KeyEnvelope;
  encrypt: boolean;
  rotationIntervalMs: number | null;
  gracePeriodMs: number;
  keyCacheTtlMs: number;
}

interface RingState {
  /** Re-read the store at this time: cache TTL, rotation due, or a retired key leaving the JWKS. */
  refreshAt: number;
  current: JwkRecord;
  signer: LocalSigner | null;
  unreadable: AuthError | null;
  keys: PublicKeySet;
}

function newestActive(records: JwkRecord[]): JwkRecord | null {
  let best: JwkRecord | null = null;
  for (const r of records) if (r.retiredAt === null && (best === null || r.generation > best.generation)) best = r;
  return best;
}

function unreadable(record: JwkRecord, cause: unknown): AuthError {
  return new AuthError(
    "JWT_KEY_UNREADABLE",
    `The JWT signing key ${record.id} cannot be decrypted with the configured secret (was the secret changed?). ` +
      "Restore the previous secret, or call auth.api.rotateJwks({ force: true }) to create a new key and retire this one.",
    { cause },
  );
}

/**
 * Signing keys kept in the store, cached per instance. Steady-state signing touches neither the store nor
 * the cipher: the imported `CryptoKey` and the serialised JWKS are reused until the cache TTL passes, a
 * rotation falls due, or a retired key's grace ends. Concurrent creators race on the unique `generation`;
 * the loser re-reads and signs with the winner's key.
 *
 * @example
 * const ring = new StoredKeyRing({ store: store.jwks, clock, random, alg: "EdDSA", envelope, encrypt: true,
 *   rotationIntervalMs: 90 * 86_400_000, gracePeriodMs: 30 * 86_400_000, keyCacheTtlMs: 60_000 });
 * const token = await ring.sign(claims);
 */
export class StoredKeyRing implements KeySource {
  private state: RingState | null = null;
  private inflight: Promise<RingState> | null = null;

  constructor(private readonly o: StoredKeyRingOptions) {}

  async sign(payload: JwtClaims): Promise<string> {
    const state = await this.current();
    if (!state.signer) throw state.unreadable ?? new AuthError("INTERNAL_ERROR", "No JWT signing key");
    return state.signer.sign(payload);
  }

  async publicKeys(): Promise<PublicKeySet> {
    return (await this.current()).keys;
  }

  async refresh(): Promise<PublicKeySet> {
    return (await this.reload()).keys;
  }

  /** A new key generation now. Without `force` it refuses while the current key cannot be decrypted here. */
  async rotate({ force }: { force: boolean }): Promise<{ kid: string }> {
    await this.inflight?.catch(() => undefined);
    const now = this.o.clock.now();
    const records = await this.o.store.list();
    const current = newestActive(records);
    // An instance with a wrong secret must not take over the key ring unless told to.
    if (current && !force && !(this.state?.signer && this.state.current.id === current.id))
      await this.readSigner(current);
    const state = await this.settle(await this.createKey(records, now), now);
    return { kid: state.current.id };
  }

  private current(): Promise<RingState> {
    const s = this.state;
    if (s && this.o.clock.now() < s.refreshAt) return Promise.resolve(s);
    return this.reload();
  }

  private reload(): Promise<RingState> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async load(): Promise<RingState> {
    const now = this.o.clock.now();
    let records = await this.o.store.list();
    const current = newestActive(records);
    if (!current || this.rotationDue(current, now)) records = await this.createKey(records, now);
    return this.settle(records, now);
  }

  private rotationDue(current: JwkRecord, now: number): boolean {
    if (current.alg !== this.o.alg) return true;
    return this.o.rotationIntervalMs !== null && now - current.createdAt.getTime() >= this.o.rotationIntervalMs;
  }

  /** Inserts generation max+1; whoever wins retires the others. Returns a fresh listing (with the winner). */
  private async createKey(records: JwkRecord[], now: number): Promise<JwkRecord[]> {
    const generation = records.reduce((max, r) => Math.max(max, r.generation), 0) + 1;
    const id = randomId(this.o.random);
    const { publicJwk, privateJwk } = await generateSigningKey(this.o.alg, id);
    const plain = JSON.stringify(privateJwk);
    const record: JwkRecord = {
      id,
      generation,
      alg: this.o.alg,
      publicKey: JSON.stringify(publicJwk),
      privateKey: this.o.encrypt ? await this.o.envelope.seal(id, plain) : plain,
      createdAt: new Date(now),
      retiredAt: null,
    };
    if (await this.o.store.insert(record)) await this.o.store.retireOthers(record.id, new Date(now));
    return this.o.store.list();
  }

  /** Heals and prunes the listing, then builds (and caches) the state from it. */
  private async settle(listed: JwkRecord[], now: number): Promise<RingState> {
    let records = listed;
    const current = newestActive(records);
    if (!current) throw new AuthError("INTERNAL_ERROR", "The JWT key store holds no current key after creating one");
    if (records.some((r) => r.id !== current.id && r.retiredAt === null)) {
      // A creator stopped between insert and retire: finish its job so the old key's grace clock starts.
      await this.o.store.retireOthers(current.id, new Date(now));
      records = records.map((r) =>
        r.id !== current.id && r.retiredAt === null ? { ...r, retiredAt: new Date(now) } : r,
      );
    }
    const cutoff = now - this.o.gracePeriodMs;
    if (records.some((r) => r.retiredAt !== null && r.retiredAt.getTime() < cutoff)) {
      await this.o.store.deleteRetiredBefore(new Date(cutoff));
      records = records.filter((r) => r.retiredAt === null || r.retiredAt.getTime() >= cutoff);
    }

    const previous = this.state;
    let signer: LocalSigner | null = null;
    let failure: AuthError | null = null;
    if (previous?.signer && previous.current.id === current.id) {
      signer = previous.signer;
    } else {
      try {
        signer = await this.readSigner(current);
      } catch (error) {
        failure = error instanceof AuthError ? error : unreadable(current, error);
      }
    }

    const published: PublicJwk[] = [];
    for (const r of [...records].sort((a, b) => b.generation - a.generation)) {
      const jwk = parsePublicKey(r);
      if (jwk) published.push(jwk);
    }
    let refreshAt = now + this.o.keyCacheTtlMs;
    if (this.o.rotationIntervalMs !== null)
      refreshAt = Math.min(refreshAt, current.createdAt.getTime() + this.o.rotationIntervalMs);
    for (const r of records)
      if (r.retiredAt !== null) refreshAt = Math.min(refreshAt, r.retiredAt.getTime() + this.o.gracePeriodMs + 1);

    this.state = {
      refreshAt,
      current,
      signer,
      unreadable: failure,
      keys: new PublicKeySet(published, previous?.keys ?? null),
    };
    return this.state;
  }

  private async readSigner(record: JwkRecord): Promise<LocalSigner> {
    try {
      const text = KeyEnvelope.isSealed(record.privateKey)
        ? await this.o.envelope.open(record.id, record.privateKey)
        : record.privateKey;
      return await LocalSigner.fromPrivateJwk(JSON.parse(text), record.alg as JwsAlgorithm, record.id);
    } catch (cause) {
      throw unreadable(record, cause);
    }
  }
}

function parsePublicKey(record: JwkRecord): PublicJwk | null {
  try {
    const parsed: unknown = JSON.parse(record.publicKey);
    return parsed !== null && typeof parsed === "object"
      ? toPublicJwk(parsed as Record<string, unknown>, record.id, record.alg)
      : null;
  } catch {
    // A corrupt row must not take the whole JWKS down; its tokens simply stop verifying.
    return null;
  }
}
