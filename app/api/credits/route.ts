// The viewer's own credits (lib/credits): what they can spend, and what
// generations in flight hold. The gateway's balance is the operator's
// (/admin, `npm run doctor`); GET /api/gateway says only whether it answers.
// With credits off (CREDITS_ENABLED=false) there are none: 404 credits_disabled.
import { showCreditBalance } from "@/lib/credits/balance";
import { creditsEnabled } from "@/lib/credits/pricing";
import { AppError } from "@/lib/errors";
import { visitorKey } from "@/lib/rate-limit";
import { withViewer } from "@/lib/viewer/with-viewer";

export const GET = withViewer(async (request, _context, viewer) => {
  if (!creditsEnabled()) throw new AppError("credits_disabled", "Credits are off on this server: submissions hold none.");
  return Response.json(await showCreditBalance({ ownerId: viewer.id, visitor: visitorKey(request.headers) }), { headers: { "Cache-Control": "private, no-store" } });
});
