// A trace backend on loopback for tests: an OTLP/HTTP receiver (POST
// /v1/traces, the JSON encoding the app's exporter sends) that keeps every
// payload as it arrived and the spans it carried, decoded.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

type AnyValue = { stringValue?: string; intValue?: number | string; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };
type OtlpSpan = {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: KeyValue[];
  links?: { traceId: string; spanId: string; attributes?: KeyValue[] }[];
};
type ExportRequest = { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[] };

/** A span as the receiver decoded it: attributes as plain values. */
export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string; attributes: Record<string, string | number | boolean> }[];
  service: string | undefined;
};

export async function startOtlpReceiver() {
  const payloads: string[] = [];
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      let body = Buffer.concat(chunks);
      if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const text = body.toString("utf8");
      if (req.method !== "POST" || req.url !== "/v1/traces" || !String(req.headers["content-type"]).startsWith("application/json")) {
        res.writeHead(415).end();
        payloads.push(text);
        return;
      }
      payloads.push(text);
      spans.push(...decode(JSON.parse(text) as ExportRequest));
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    /** Every body received, as text: what left the app, byte for byte. */
    payloads,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function decode(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const service = values(resourceSpans.resource?.attributes)["service.name"];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || null,
        name: span.name,
        attributes: values(span.attributes),
        links: (span.links ?? []).map((link) => ({ traceId: link.traceId, spanId: link.spanId, attributes: values(link.attributes) })),
        service: typeof service === "string" ? service : undefined,
      })),
    );
  });
}

function values(attributes: KeyValue[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(
    attributes.map(({ key, value }) => [key, value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : undefined) ?? value.doubleValue ?? value.boolValue ?? ""]),
  );
}
