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
  /**
   * How long a scheduled key is published before it signs: other instances' key caches and verifiers' cached
   * `/jwks` answers (each up to `keyCacheTtl`) must hold it before its first token arrives.
   */
  publishAheadMs: number;
}

interface RingState {
  /** Re-read the store at this time: cache TTL, rotation due, or a retired key leaving the JWKS. */
  refreshAt: number;
  current: JwkRecord;
  signer: LocalSigner | null;
  unreadable: AuthError | null;
  keys: PublicKeySet;
}

/** The key that signs at `now`: the newest not retired whose signing has begun (`createdAt` is when it signs). */
function signingKey(records: JwkRecord[], now: number): JwkRecord | null {
  let best: JwkRecord | null = null;
  for (const r of records)
    if (r.retiredAt === null && r.createdAt.getTime() <= now && (best === null || r.generation > best.generation))
      best = r;
  return best;
}

/** A published key that signs from a later time (a scheduled rotation announced ahead). */
function scheduledAfter(records: JwkRecord[], current: JwkRecord): JwkRecord | null {
  let next: JwkRecord | null = null;
  for (const r of records)
    if (r.retiredAt === null && r.generation > current.generation && (next === null || r.createdAt < next.createdAt))
      next = r;
  return next;
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

  /**
   * A new key generation that signs now. Without `force` (or `revoke`) it refuses while the current key cannot be
   * decrypted here. With `revoke` every older key is deleted at once instead of kept for `gracePeriod`: tokens it
   * signed stop verifying here now, and on other instances when their key cache (`keyCacheTtl`) next refreshes.
   */
  async rotate({ force, revoke }: { force: boolean; revoke: boolean }): Promise<{ kid: string }> {
    await this.inflight?.catch(() => undefined);
    const now = this.o.clock.now();
    const records = await this.o.store.list();
    const current = signingKey(records, now);
    // An instance with a wrong secret must not take over the key ring unless told to.
    if (current && !force && !revoke) await this.assertReadable(current);
    let listed = await this.createKey(records, now, now);
    if (revoke) {
      await this.o.store.deleteRetiredBefore(new Date(now + 1));
      listed = await this.o.store.list();
    }
    const state = await this.settle(listed, now);
    return { kid: state.current.id };
  }

  private async assertReadable(current: JwkRecord): Promise<void> {
    if (!(this.state?.signer && this.state.current.id === current.id)) await this.readSigner(current);
  }

  /** Whether this instance can decrypt `current`: only then may it decide a rotation on its own. */
  private async readable(current: JwkRecord): Promise<boolean> {
    try {
      await this.assertReadable(current);
      return true;
    } catch {
      return false;
    }
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
    const current = signingKey(records, now);
    if (!current) {
      records = await this.createKey(records, now, now);
    } else if (current.alg !== this.o.alg) {
      // A changed `alg` switches at once (this instance cannot sign with a key of another algorithm).
      if (await this.readable(current)) records = await this.createKey(records, now, now);
    } else {
      const publishAt = this.nextPublishAt(current);
      // Scheduled: announce the next key `publishAheadMs` before it signs. Only an instance that can decrypt the
      // current key may decide this: one with a wrong secret would otherwise replace a key that works elsewhere.
      if (
        publishAt !== null &&
        now >= publishAt &&
        !scheduledAfter(records, current) &&
        (await this.readable(current))
      ) {
        const signsAt = Math.max(publishAt + this.o.publishAheadMs, now + this.o.publishAheadMs);
        records = await this.createKey(records, now, signsAt);
      }
    }
    return this.settle(records, now);
  }

  /** When the key after `current` is due to be published, or null without scheduled rotation. */
  private nextPublishAt(current: JwkRecord): number | null {
    if (this.o.rotationIntervalMs === null) return null;
    return current.createdAt.getTime() + this.o.rotationIntervalMs - this.o.publishAheadMs;
  }

  /**
   * Inserts generation max+1, signing from `signsAt` (its `createdAt`); a key that signs now retires the older
   * ones (lower generations only). Returns a fresh listing (with the winner of a race on the generation).
   */
  private async createKey(records: JwkRecord[], now: number, signsAt: number): Promise<JwkRecord[]> {
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
      createdAt: new Date(signsAt),
      retiredAt: null,
    };
    if ((await this.o.store.insert(record)) && signsAt <= now)
      await this.o.store.retireOthers(record.id, new Date(now));
    return this.o.store.list();
  }

  /** Heals and prunes the listing, then builds (and caches) the state from it. */
  private async settle(listed: JwkRecord[], now: number): Promise<RingState> {
    let records = listed;
    const current = signingKey(records, now);
    if (!current) throw new AuthError("INTERNAL_ERROR", "The JWT key store holds no current key after creating one");
    if (records.some((r) => r.generation < current.generation && r.retiredAt === null)) {
      // A scheduled key began signing, or a creator stopped between insert and retire: retire the older keys so
      // their grace clock starts (from when the current key began signing, at the latest now).
      const at = new Date(current.createdAt.getTime());
      await this.o.store.retireOthers(current.id, at);
      records = records.map((r) =>
        r.generation < current.generation && r.retiredAt === null ? { ...r, retiredAt: at } : r,
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
    const next = scheduledAfter(records, current);
    if (next) refreshAt = Math.min(refreshAt, next.createdAt.getTime());
    const publishAt = this.nextPublishAt(current);
    if (publishAt !== null && !next) refreshAt = Math.min(refreshAt, Math.max(publishAt, now + 1));
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
