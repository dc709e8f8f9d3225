// GET /credits/receipt/:sessionId: the buyer's receipt for a purchase, a
// redirect to the address Stripe (or the payments simulator) hosts it at.
// Linked from the purchase's row in the credits history.
import { AppError } from "@/lib/errors";
import { SESSION_ID } from "@/lib/payments/checkout-status";
import { findReceipt } from "@/lib/payments/receipt";
import { withViewer } from "@/lib/viewer/with-viewer";

export const GET = withViewer<{ params: Promise<{ sessionId: string }> }>(async (_request, { params }, viewer) => {
  const { sessionId } = await params;
  const receipt = SESSION_ID.test(sessionId) ? await findReceipt({ checkoutSessionId: sessionId, ownerId: viewer.id }) : { state: "not_found" as const };
  if (receipt.state === "not_found") throw new AppError("not_found", "No purchase of yours has this id.");
  if (receipt.state === "unavailable") {
    throw new AppError("payments_unavailable", "The payment provider did not give this purchase's receipt just now. Try again in a minute.", undefined, { "Retry-After": "60" });
  }
  return new Response(null, { status: 303, headers: { Location: receipt.url, "Cache-Control": "private, no-store" } });
});
