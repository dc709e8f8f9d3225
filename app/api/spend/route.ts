// The viewer's spend against their cap, for the header, in their own unit
// (lib/generations/spend-limit.ts showSpend): `{ spend: null }` when there is no cap.
import { showSpend } from "@/lib/generations/spend-limit";
import { withViewer } from "@/lib/viewer/with-viewer";

export const GET = withViewer(async (_request, _context, viewer) =>
  Response.json({ spend: await showSpend({ ownerId: viewer.id, signedIn: Boolean(viewer.signedIn) }) }, { headers: { "Cache-Control": "private, no-store" } }),
);
