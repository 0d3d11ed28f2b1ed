import { describe, expect, it, vi } from "vitest";
import { context, metrics, ProxyTracer } from "@opentelemetry/api";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import { bearer, createTestAuth } from "../../test/test-auth.ts";
import { startOtelSdk } from "../../test/telemetry/otel-test-sdk.ts";

// `@opentelemetry/api` installed (as any app with an instrumented dependency has it) but no SDK registered: the
// API's tracer is a no-op, and Latchkey must not pay for spans nobody records on every request.
describe("OpenTelemetry API without an SDK", () => {
  it("requests switch no context; an SDK registered afterwards gets the request and store spans", async () => {
    const t = createTestAuth();
    const { token } = await t.signUp("ada@example.com");
    const switches = vi.spyOn(context, "with");
    // Without a tracer provider no span is even made: the no-op tracer's could only be an invalid one.
    const starts = vi.spyOn(ProxyTracer.prototype, "startSpan");
    try {
      const res = await t.request("GET", "/get-session", { headers: bearer(token) });
      expect(((await res.json()) as { user: { email: string } }).user.email).toBe("ada@example.com");
      expect(await t.request("GET", "/no-such-endpoint")).toHaveProperty("status", 404);
      expect(switches).not.toHaveBeenCalled();
      expect(starts).not.toHaveBeenCalled();

      const sdk = startOtelSdk();
      try {
        expect((await t.request("GET", "/get-session", { headers: bearer(token) })).status).toBe(200);
        expect(switches).toHaveBeenCalled();
        expect(starts).toHaveBeenCalled();
        const spans = sdk.spans();
        const request = spans.find((s) => s.name === "latchkey GET /get-session");
        const lookup = spans.find((s) => s.name === "latchkey.store sessions.findByTokenHash");
        expect(request?.attributes["http.response.status_code"]).toBe(200);
        expect(lookup?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
      } finally {
        await sdk.stop();
      }
    } finally {
      switches.mockRestore();
      starts.mockRestore();
    }
  });

  it("a meter provider alone (no tracer): no context switch, the request duration still recorded", async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({ readers: [reader] });
    metrics.setGlobalMeterProvider(provider);
    const switches = vi.spyOn(context, "with");
    try {
      const t = createTestAuth();
      const { token } = await t.signUp("ada@example.com");
      expect((await t.request("GET", "/get-session", { headers: bearer(token) })).status).toBe(200);
      expect(switches).not.toHaveBeenCalled();
      await reader.forceFlush();
      const points = exporter
        .getMetrics()
        .flatMap((r) => r.scopeMetrics)
        .flatMap((s) => s.metrics)
        .filter((m) => m.descriptor.name === "latchkey.request.duration")
        .flatMap((m) => m.dataPoints as Array<{ attributes: Record<string, unknown> }>);
      expect(points.map((p) => p.attributes)).toContainEqual({
        "http.request.method": "GET",
        "http.route": "/auth/get-session",
        "http.response.status_code": 200,
      });
    } finally {
      switches.mockRestore();
      await provider.shutdown();
      metrics.disable();
    }
  });
});
