// One-click unsubscribe from ready emails (RFC 8058): POST only, so a scanner
// that follows the link changes nothing (Next answers 405 to other methods).
// The token is the credential; lib/notifications/unsubscribe.ts has the cases.
import { AppError } from "@/lib/errors";
import { route, readBody } from "@/lib/http";
import { unsubscribeByLink } from "@/lib/notifications/unsubscribe";

const BODY_MAX_BYTES = 1_024;

export const POST = route(async (request: Request, { params }: { params: Promise<{ token: string }> }) => {
  const { token } = await params;
  // A provider sends "List-Unsubscribe=One-Click"; the page's own form also says where it came from.
  const body = new URLSearchParams(await readBody(request, BODY_MAX_BYTES));
  if ((await unsubscribeByLink({ token })) === "not_found") throw new AppError("not_found", "This unsubscribe link is not valid.");
  if (body.get("from") === "page") return new Response(null, { status: 303, headers: { Location: `/unsubscribe/${encodeURIComponent(token)}?done=1` } });
  return Response.json({ unsubscribed: true }, { status: 200 });
});
