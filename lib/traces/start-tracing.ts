// Starts OpenTelemetry's tracing SDK: spans of this process (ours through
// tracing.ts, and Next's own: requests, route handlers, fetches) batched to an
// OTLP/HTTP endpoint as JSON. Loaded by instrumentation.ts only when
// OTEL_EXPORTER_OTLP_ENDPOINT is set: the one module that imports the SDK.
import * as api from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider, type Span, type SpanProcessor } from "@opentelemetry/sdk-trace";
import { onDrain } from "@/lib/lifecycle/drain";
import { setRunningTracing, tracingOn } from "./tracing";

export type TracingSettings = { endpoint: string; headers: Record<string, string>; serviceName: string };

export function startTracing({ endpoint, headers, serviceName }: TracingSettings): void {
  if (tracingOn()) return;
  const url = `${endpoint.replace(/\/+$/, "")}/v1/traces`;
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new QueryScrubber(), new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url, headers }) })],
  });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  // An endpoint that refuses or cannot be reached is said in the log, not swallowed.
  api.diag.setLogger(
    {
      error: (message) => console.warn(`[framehook] traces: ${message}`),
      warn: (message) => console.warn(`[framehook] traces: ${message}`),
      info: () => {},
      debug: () => {},
      verbose: () => {},
    },
    api.DiagLogLevel.WARN,
  );
  setRunningTracing({ api, tracer: provider.getTracer("framehook") });
  // A stopping instance sends what it has before it exits.
  onDrain(() => provider.forceFlush());
  process.once("beforeExit", () => void provider.shutdown());
  console.log(`[framehook] traces: exporting spans to ${new URL(url).origin}`);
}

/** Attributes of Next's spans that hold a request's or a fetch's URL. */
const URL_ATTRIBUTES = ["http.target", "http.url", "url.full"];

/**
 * Cuts the query from every URL a span holds (its name included) before it
 * is exported: a callback's URL carries its token, an input link its
 * signature, a presigned download its credentials, a sign-in link its code.
 */
class QueryScrubber implements SpanProcessor {
  onStart(): void {}
  onEnding(span: Span): void {
    const name = withoutQuery(span.name);
    if (name !== span.name) span.updateName(name);
    for (const key of URL_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value === "string" && value.includes("?")) span.setAttribute(key, withoutQuery(value));
    }
    if (span.attributes["url.query"] !== undefined) span.setAttribute("url.query", "");
  }
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

function withoutQuery(text: string): string {
  return text.replace(/\?\S*/g, "");
}
