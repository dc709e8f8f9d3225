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
    spanProcessors: [new SecretScrubber(), new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url, headers }) })],
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

/**
 * Cuts what a URL may carry that is a secret from every string a span holds
 * (its name, Next's `http.target` and `http.url`, any other) before export:
 * the query (a callback's token, an input link's signature, a presigned
 * download's credentials, a sign-in link's code) and a public share link's
 * token, which is in its path (lib/sharing/share-link.ts).
 */
class SecretScrubber implements SpanProcessor {
  onStart(): void {}
  onEnding(span: Span): void {
    const name = withoutSecrets(span.name);
    if (name !== span.name) span.updateName(name);
    for (const [key, value] of Object.entries(span.attributes)) {
      if (typeof value !== "string") continue;
      const scrubbed = withoutSecrets(value);
      if (scrubbed !== value) span.setAttribute(key, scrubbed);
    }
  }
  onEnd(): void {}
  forceFlush(): Promise<void> {
    return Promise.resolve();
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A public link's token in a path: a shared video's (/v/<token>) or a comparison's (/c/<token>). */
const SHARE_TOKEN = /(\/[vc]\/)[^/?#\s]+/g;

function withoutSecrets(text: string): string {
  return text.replace(/\?\S*/g, "").replace(SHARE_TOKEN, "$1[token]");
}
