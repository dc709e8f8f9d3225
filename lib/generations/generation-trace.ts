// A generation's trace: its submit's span context is stored on the row
// (traceContext), so that the steps which come later, in other requests (the
// callback or poll that settles it, the copy and the still), join the same
// trace. Off, nothing is read.
import "server-only";
import { prisma } from "@/lib/db";
import { traced, tracingOn, type SpanAttributes as Attributes, type SpanHandle } from "@/lib/traces/tracing";

/** What identifies a generation on a span: ids only, never the prompt or anything its owner typed. */
export function generationAttributes({ id, ownerId }: { id: string; ownerId?: string | null }): Attributes {
  return { "framehook.generation.id": id, ...(ownerId ? { "framehook.owner.id": ownerId } : {}) };
}

/**
 * Runs `fn` in a span of generation `id`'s trace, a child of its submit's
 * span (linked to it too, and with `fromRequest` to the request it arrived
 * in). A generation with no stored context (submitted with traces off) gets
 * a span of the current trace.
 */
export async function tracedGeneration<T>(
  name: string,
  { id, attributes, fromRequest = false }: { id: string; attributes?: Attributes; fromRequest?: boolean },
  fn: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  if (!tracingOn()) return traced(name, {}, fn);
  const row = await prisma.generation.findUnique({ where: { id }, select: { traceContext: true, ownerId: true } }).catch(() => null);
  return traced(name, { continues: row?.traceContext, linkRequest: fromRequest, attributes: { ...generationAttributes({ id, ownerId: row?.ownerId }), ...attributes } }, fn);
}
