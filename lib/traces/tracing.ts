// The seam the domain traces through: spans around the steps of a video, the
// trace context a generation row keeps, and the `traceparent` an outgoing call
// carries. Off (OTEL_EXPORTER_OTLP_ENDPOINT unset), every function here is a
// property read and a call: OpenTelemetry is imported only by start-tracing.ts,
// which instrumentation.ts loads only when the endpoint is set, and which puts
// the running API on globalThis (Next loads a module once per bundle, and the
// routes' bundles must see what instrumentation.ts started). Types only below.
import type { Attributes, Context, Link, SpanContext, Tracer } from "@opentelemetry/api";

type Api = typeof import("@opentelemetry/api");
export type SpanAttributes = Attributes;
export type RunningTracing = { api: Api; tracer: Tracer };

const globalForTracing = globalThis as unknown as { framehookTracing?: RunningTracing };

/** Set once by start-tracing.ts. */
export function setRunningTracing(running: RunningTracing): void {
  globalForTracing.framehookTracing = running;
}

export const tracingOn = (): boolean => globalForTracing.framehookTracing !== undefined;

/** What a traced step may add to its span once it knows more (ids, outcomes). Ids only: never a prompt, an email or a URL's query. */
export type SpanHandle = { set(attributes: Attributes): void };
const NOTHING: SpanHandle = { set() {} };

export type SpanOptions = {
  attributes?: Attributes;
  /** "client": a call to another service (the gateway). */
  kind?: "internal" | "client";
  /**
   * A `traceparent` to continue (a generation's stored submit context): the
   * span joins that trace instead of the current one, as a child of that span
   * and linked to it (a viewer that shows traces apart still finds the way).
   */
  continues?: string | null;
  /** With `continues`: also link to the span current here (the request this step arrived in), whose trace it leaves. */
  linkRequest?: boolean;
};

/** Runs `fn` inside a span named `name` (when tracing is on); the span ends when `fn` settles, and records an error by its type only. */
export function traced<T>(name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
  const running = globalForTracing.framehookTracing;
  // Off: the step runs as if untraced, with no promise of its own around it.
  return running ? inSpan(running, name, options, fn) : fn(NOTHING);
}

function inSpan<T>({ api, tracer }: RunningTracing, name: string, options: SpanOptions, fn: (span: SpanHandle) => Promise<T>): Promise<T> {
  const active = api.context.active();
  let parent: Context = active;
  const links: Link[] = [];
  const stored = options.continues ? remoteContext(api, options.continues) : undefined;
  if (stored) {
    parent = api.trace.setSpanContext(api.ROOT_CONTEXT, stored);
    links.push({ context: stored, attributes: { "framehook.link": "submit" } });
    const request = options.linkRequest ? api.trace.getSpanContext(active) : undefined;
    if (request && api.trace.isSpanContextValid(request)) links.push({ context: request, attributes: { "framehook.link": "request" } });
  }
  const kind = options.kind === "client" ? api.SpanKind.CLIENT : api.SpanKind.INTERNAL;
  return tracer.startActiveSpan(name, { kind, attributes: options.attributes, links }, parent, async (span) => {
    try {
      return await fn({ set: (attributes) => span.setAttributes(attributes) });
    } catch (error) {
      // The type only: messages can carry what a span must not (an address, a prompt in a validation error).
      const type = error instanceof Error ? error.name : typeof error;
      span.setAttribute("error.type", type);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The current span's context as a W3C `traceparent`, to store beside what it started (a generation), or null when off. */
export function currentTraceparent(): string | null {
  const running = globalForTracing.framehookTracing;
  if (!running) return null;
  const context = running.api.trace.getSpanContext(running.api.context.active());
  if (!context || !running.api.trace.isSpanContextValid(context)) return null;
  return `00-${context.traceId}-${context.spanId}-${context.traceFlags.toString(16).padStart(2, "0")}`;
}

/** Headers that carry the current trace to another service (`traceparent`); none when off. */
export function traceHeaders(): Record<string, string> {
  const running = globalForTracing.framehookTracing;
  if (!running) return {};
  const carrier: Record<string, string> = {};
  running.api.propagation.inject(running.api.context.active(), carrier);
  return carrier;
}

function remoteContext(api: Api, traceparent: string): SpanContext | undefined {
  const context = api.trace.getSpanContext(api.propagation.extract(api.ROOT_CONTEXT, { traceparent }));
  return context && api.trace.isSpanContextValid(context) ? context : undefined;
}
