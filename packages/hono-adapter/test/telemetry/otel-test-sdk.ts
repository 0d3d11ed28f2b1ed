// The OpenTelemetry SDK with in-memory exporters, registered globally as an app would (test files only).
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";

/** One data point of an exported metric. */
export interface Point {
  name: string;
  attributes: Record<string, unknown>;
  /** A counter's sum, or a histogram's count. */
  value: number;
}

export interface OtelSdk {
  spans(): ReadableSpan[];
  /** Data points recorded since the last `reset()` (delta temporality). */
  points(): Promise<Point[]>;
  /** Everything exported so far, spans and metrics, serialised for a secrecy scan. */
  exported(): Promise<string>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

export function startOtelSdk(): OtelSdk {
  const spanExporter = new InMemorySpanExporter();
  const metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  // Exports only when asked (forceFlush): the interval is far longer than any test.
  const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })] });
  trace.setGlobalTracerProvider(tracerProvider);
  const meterProvider = new MeterProvider({ readers: [reader] });
  metrics.setGlobalMeterProvider(meterProvider);

  const points = async (): Promise<Point[]> => {
    await reader.forceFlush();
    const out: Point[] = [];
    for (const resource of metricExporter.getMetrics())
      for (const scope of resource.scopeMetrics)
        for (const metric of scope.metrics)
          for (const point of metric.dataPoints as Array<{ attributes: Record<string, unknown>; value: unknown }>) {
            const value = typeof point.value === "number" ? point.value : (point.value as { count: number }).count;
            out.push({ name: metric.descriptor.name, attributes: point.attributes, value });
          }
    metricExporter.reset();
    return out;
  };
  const everything: unknown[] = [];
  return {
    spans: () => spanExporter.getFinishedSpans(),
    points: async () => {
      const found = await points();
      everything.push(found);
      return found;
    },
    async exported() {
      everything.push(await points());
      const spans = spanExporter.getFinishedSpans().map((s) => ({
        name: s.name,
        kind: s.kind,
        attributes: s.attributes,
        status: s.status,
        events: s.events,
        links: s.links,
        scope: s.instrumentationScope,
      }));
      return JSON.stringify({ spans, metrics: everything });
    },
    async reset() {
      await points();
      everything.length = 0;
      spanExporter.reset();
    },
    async stop() {
      await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
      trace.disable();
      metrics.disable();
      context.disable();
    },
  };
}
