import { z } from "zod";
import { PAGE_SIZE } from "@/app/_components/client-data";
import { AppError } from "@/lib/errors";
import { MODEL_IDS } from "@/lib/models/catalog";
import { GENERATION_STATES } from "@/lib/generations/generation";
import { listGenerationsFresh } from "@/lib/generations/list-fresh";
import { PAGE_SIZE_MAX } from "@/lib/generations/queries";
import { submitGeneration } from "@/lib/generations/submit";
import { SEARCH_MAX_LENGTH } from "@/lib/generations/search-text";
import { jsonWithEtag, readJson } from "@/lib/http";
import { visitorKey } from "@/lib/rate-limit";
import { galleryScope, withViewer } from "@/lib/viewer/with-viewer";

const listQuery = z.object({
  cursor: z.string().max(100).optional(),
  limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE),
  state: z.enum(GENERATION_STATES).optional(),
  model: z.enum(MODEL_IDS).optional(),
  q: z.string().max(SEARCH_MAX_LENGTH).optional(),
  // "background": a live tab; the gateway is asked about stale tasks without holding this answer.
  refresh: z.enum(["wait", "background"]).default("wait"),
});

export const GET = withViewer(async (request, _context, viewer) => {
  const query = listQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!query.success) {
    throw new AppError("bad_request", "Invalid query.", z.flattenError(query.error).fieldErrors as Record<string, string[]>);
  }
  const { refresh, ...filters } = query.data;
  return jsonWithEtag(request, await listGenerationsFresh({ ...filters, owner: galleryScope(viewer) }, { wait: refresh === "wait" }));
});

export const POST = withViewer(async (request, _context, viewer) => {
  const body = await readJson(request);
  const idempotencyKey = request.headers.get("idempotency-key") ?? undefined;
  const { generation, error } = await submitGeneration({
    body,
    idempotencyKey,
    visitor: visitorKey(request.headers),
    viewer,
  });
  if (error) {
    return Response.json(
      { error: { code: error.code, message: error.message }, generation: { id: generation.id, state: generation.state } },
      { status: error.status, headers: error.headers },
    );
  }
  return Response.json({ id: generation.id, state: generation.state, taskId: generation.taskId }, { status: 201 });
});
