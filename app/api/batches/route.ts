import { submitBatch } from "@/lib/batches/submit-batch";
import { readJson } from "@/lib/http";
import { visitorKey } from "@/lib/rate-limit";
import { withViewer } from "@/lib/viewer/with-viewer";

/**
 * A comparison: 201 once the batch is stored and held, each video with its
 * own state (a model the gateway refused is SUBMIT_FAILED with its error,
 * its share given back). Refused whole (402, 429, 422): nothing stored.
 */
export const POST = withViewer(async (request, _context, viewer) => {
  const body = await readJson(request);
  const { batch, videos } = await submitBatch({
    body,
    idempotencyKey: request.headers.get("idempotency-key") ?? undefined,
    visitor: visitorKey(request.headers),
    viewer,
  });
  return Response.json(
    {
      id: batch.id,
      videos: videos.map(({ generation, error }) => ({
        id: generation.id,
        model: generation.model,
        state: generation.state,
        taskId: generation.taskId,
        ...(error ? { error: { code: error.code, message: error.message } } : {}),
      })),
    },
    { status: 201 },
  );
});
