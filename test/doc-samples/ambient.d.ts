// Packages the code samples of README.md and docs/*.md name that this repository does not install: declared here
// so the samples type-check; their own types are not what the check is about.
declare module "pino";
declare module "postgres";
declare module "@opentelemetry/sdk-node";
declare module "@opentelemetry/sdk-metrics";
declare module "@opentelemetry/exporter-trace-otlp-http";
declare module "@opentelemetry/exporter-metrics-otlp-http";
