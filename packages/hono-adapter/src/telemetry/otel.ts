import type * as Otel from "@opentelemetry/api";
import { ADAPTER_VERSION } from "../version.ts";

/** `@opentelemetry/api`, the optional peer. */
export type OtelApi = typeof Otel;

// A variable specifier: bundlers (esbuild, webpack, wrangler) leave it alone, so an app without the peer builds
// and runs; Node, Bun and Deno resolve it from the app's node_modules when it is installed.
const OTEL_API = "@opentelemetry/api";

let loading: Promise<OtelApi | null> | null = null;

/** The app's `@opentelemetry/api`, or null when it is not installed (telemetry then does nothing at all). */
function loadOpenTelemetry(): Promise<OtelApi | null> {
  loading ??= import(/* webpackIgnore: true */ /* @vite-ignore */ OTEL_API).then(
    (module: OtelApi & { default?: OtelApi }) => (module.trace ? module : (module.default ?? null)),
    () => null,
  );
  return loading;
}

/** Request duration buckets in seconds: from a cached session read to a slow argon2id sign-in. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The tracer and the instruments, from whatever tracer and meter providers the app registered (no-ops when none).
 * Attribute values are route templates, methods, outcomes and error codes: never an address, IP, token, code or key.
 */
export class Telemetry {
  readonly tracer: Otel.Tracer;
  readonly requestDuration: Otel.Histogram;
  readonly signIns: Otel.Counter;
  readonly signUps: Otel.Counter;
  readonly otpsSent: Otel.Counter;
  readonly otpsVerified: Otel.Counter;
  readonly otpsFailed: Otel.Counter;
  readonly lockouts: Otel.Counter;
  readonly rateLimited: Otel.Counter;
  readonly apiKeyVerifies: Otel.Counter;
  readonly sessionsRevoked: Otel.Counter;
  /**
   * Whether a meter provider was registered when the instruments were made. The API has no proxy for metrics:
   * instruments made from its no-op meter stay no-ops, so the per-request figures need not be computed.
   */
  readonly metered: boolean;
  /** The API's no-op tracer provider: what its global proxy delegates to while no SDK registered one. */
  private readonly noTracerProvider: Otel.TracerProvider;
  private readonly meter: Otel.Meter;

  constructor(readonly api: OtelApi) {
    this.tracer = api.trace.getTracer("@latchkey/hono-adapter", ADAPTER_VERSION);
    this.noTracerProvider = new api.ProxyTracerProvider().getDelegate();
    const meter = api.metrics.getMeter("@latchkey/hono-adapter", ADAPTER_VERSION);
    this.meter = meter;
    this.metered = meter !== api.createNoopMeter();
    this.requestDuration = meter.createHistogram("latchkey.request.duration", {
      description: "Duration of auth requests, by route, method, status and error code",
      unit: "s",
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    const counter = (name: string, description: string) => meter.createCounter(name, { description });
    this.signIns = counter("latchkey.sign_ins", "Sign-in answers, by method and outcome (success or error code)");
    this.signUps = counter("latchkey.sign_ups", "Users created");
    this.otpsSent = counter("latchkey.otp.sent", "One-time codes and links issued, by purpose");
    this.otpsVerified = counter("latchkey.otp.verified", "One-time codes and links accepted, by purpose");
    this.otpsFailed = counter("latchkey.otp.failed", "Wrong one-time codes, by purpose");
    this.lockouts = counter("latchkey.lockouts", "Identifiers locked after repeated failures");
    this.rateLimited = counter(
      "latchkey.rate_limited",
      "Answers refused by the rate limiter (429 RATE_LIMITED), by route",
    );
    this.apiKeyVerifies = counter(
      "latchkey.api_key.verifies",
      "API-key verifications, by result code (VALID or the error)",
    );
    this.sessionsRevoked = counter("latchkey.sessions.revoked", "Sessions revoked, by reason");
  }

  /**
   * The lookup cache of `createAuth({ cache })`, read when the SDK collects: `latchkey.cache.entries` (its size now)
   * and `latchkey.cache.lookups` by `latchkey.cache.result` (`hit`, `miss`; the hit rate is hits over both). The
   * figures are this auth's since it was created.
   */
  observeCache(stats: () => { entries: number; hits: number; misses: number }): void {
    const entries = this.meter.createObservableGauge("latchkey.cache.entries", {
      description: "Entries held by the lookup cache (sessions and API keys) now",
    });
    const lookups = this.meter.createObservableCounter("latchkey.cache.lookups", {
      description: "Lookups through the lookup cache, by result (hit or miss)",
    });
    this.meter.addBatchObservableCallback(
      (result) => {
        const now = stats();
        result.observe(entries, now.entries);
        result.observe(lookups, now.hits, { "latchkey.cache.result": "hit" });
        result.observe(lookups, now.misses, { "latchkey.cache.result": "miss" });
      },
      [entries, lookups],
    );
  }

  /**
   * No tracer provider is registered now: the global provider is the API's proxy and delegates to the no-op one, so
   * a span would neither record nor carry a context other than its parent's. Asked on every call (an SDK may
   * register later). Another copy of the API (another proxy class) answers false: the span is then asked.
   */
  untraced(): boolean {
    const provider = this.api.trace.getTracerProvider();
    return provider instanceof this.api.ProxyTracerProvider && provider.getDelegate() === this.noTracerProvider;
  }
}

/**
 * Holds the telemetry once `@opentelemetry/api` has loaded; `null` meanwhile, when the peer is missing, or with
 * `createAuth({ telemetry: false })`.
 */
export interface TelemetryHandle {
  current: Telemetry | null;
  ready: Promise<Telemetry | null>;
}

export function createTelemetry(enabled: boolean): TelemetryHandle {
  const handle: TelemetryHandle = { current: null, ready: Promise.resolve(null) };
  if (!enabled) return handle;
  handle.ready = loadOpenTelemetry().then((api) => (handle.current = api ? new Telemetry(api) : null));
  return handle;
}

/**
 * Without a tracer provider and without an active span, the no-op tracer's span could only be an invalid one:
 * `withSpan` would run bare. True then, without making the span (and its context checks) on every request.
 */
export function untracedHere(telemetry: Telemetry): boolean {
  const { api } = telemetry;
  return telemetry.untraced() && api.trace.getSpanContext(api.context.active()) === undefined;
}

/**
 * Starts a span for `run` as the active one (its store calls become its children), or runs `run` bare when no SDK
 * answered: the API's no-op tracer gives a span that neither records nor carries a valid context, whose only effect
 * would be the context switch. The tracer is asked on every call, so an SDK registered later is used from then on.
 */
export function withSpan<T>(
  telemetry: Telemetry,
  name: string,
  options: Otel.SpanOptions,
  run: (span: Otel.Span | null) => T,
): T {
  const { api } = telemetry;
  if (untracedHere(telemetry)) return run(null);
  const span = telemetry.tracer.startSpan(name, options);
  if (!span.isRecording() && !api.trace.isSpanContextValid(span.spanContext())) return run(null);
  return api.context.with(api.trace.setSpan(api.context.active(), span), run, undefined, span);
}
