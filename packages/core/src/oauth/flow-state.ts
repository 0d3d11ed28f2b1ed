import { base64url, constantTimeEqual, hmacSha256With, randomId, utf8 } from "../crypto/crypto.ts";
import { KeyEnvelope } from "../jwt/index.ts";
import type { AuthContext } from "../context/context.ts";

/** How long a started flow may take to come back (the state record's lifetime). */
export const OAUTH_STATE_TTL_MS = 10 * 60_000;

/** The verification-row identifier prefix of a started flow (`oauth-state:<flow id>`). */
const STATE_PREFIX = "oauth-state:";

/** The sealed part of a started flow (its verification row's payload). */
export interface FlowRecord {
  provider: string;
  verifier: string;
  nonce: string;
  callbackURL: string;
  errorCallbackURL: string;
  newUserCallbackURL: string | null;
  /** The user a `POST /link-social` flow links to; null for a sign-in. */
  linkUserId: string | null;
}

/** A stored flow's verification row, as `secrets.findToken` answers it. */
export type FlowRow = Awaited<ReturnType<AuthContext["secrets"]["findToken"]>>;

/**
 * The state of started flows: the single-use verification row whose payload is the sealed `FlowRecord`, and the
 * signed cookie that binds a flow to the browser that started it.
 */
export class FlowStates {
  private readonly flowBox: KeyEnvelope;
  private readonly stateMac: (text: string) => Uint8Array;

  constructor(private readonly ctx: AuthContext) {
    const { secret } = ctx.config;
    this.flowBox = new KeyEnvelope(secret, ctx.random, { salt: "latchkey/oauth-state", info: "aes-256-gcm v1" });
    // A key of its own for the state cookie's MAC, derived from the secret (never the secret itself).
    this.stateMac = hmacSha256With(utf8(`latchkey/oauth-state-cookie\u0000${secret}`));
  }

  /** The cookie value that binds a flow to the browser that started it: `<state>.<HMAC>`. */
  cookieValue(state: string): string {
    return `${state}.${base64url(this.stateMac(`${STATE_PREFIX}${state}`))}`;
  }

  /** The state a cookie carries when its MAC is right; null otherwise. */
  stateOfCookie(cookie: string | null): string | null {
    if (!cookie) return null;
    const dot = cookie.lastIndexOf(".");
    if (dot <= 0) return null;
    const state = cookie.slice(0, dot);
    return constantTimeEqual(cookie, this.cookieValue(state)) ? state : null;
  }

  /** Stores the single-use state record of a flow (sealed; 10 minutes) and answers its state. */
  async issue(flow: FlowRecord, linkUserId: string | null): Promise<string> {
    const { ctx } = this;
    const identifier = `${STATE_PREFIX}${randomId(ctx.random)}`;
    const sealed = await this.flowBox.seal(identifier, JSON.stringify(flow));
    return ctx.secrets.issueToken(identifier, linkUserId, OAUTH_STATE_TTL_MS, sealed);
  }

  /** The state's verification row (throws when it is unknown, spent or expired). */
  find(state: string): Promise<FlowRow> {
    return this.ctx.secrets.findToken(state, STATE_PREFIX);
  }

  /** The flow a row seals (throws when it cannot be opened). */
  async open(row: FlowRow): Promise<FlowRecord> {
    return JSON.parse(await this.flowBox.open(row.identifier, row.payload ?? "")) as FlowRecord;
  }
}
