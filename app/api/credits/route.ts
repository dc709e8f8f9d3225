// The viewer's own credits (lib/credits): what they can spend, and what
// generations in flight hold. The gateway's balance is the operator's
// (/admin, `npm run doctor`); GET /api/gateway says only whether it answers.
import { showCreditBalance } from "@/lib/credits/balance";
import { visitorKey } from "@/lib/rate-limit";
import { withViewer } from "@/lib/viewer/with-viewer";

export const GET = withViewer(async (request, _context, viewer) =>
  Response.json(await showCreditBalance({ ownerId: viewer.id, visitor: visitorKey(request.headers) }), { headers: { "Cache-Control": "private, no-store" } }),
);
