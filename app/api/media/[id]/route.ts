// A result's stored copy (lib/media): the file itself with byte ranges, or a
// redirect to the bucket. The gallery and detail page play and download this.
import { route } from "@/lib/http";
import { serveStoredMedia } from "@/lib/media/serve-media";

type Context = { params: Promise<{ id: string }> };

const serve = route<Context>(async (request, { params }) => serveStoredMedia({ id: (await params).id, request }));

export const GET = serve;
export const HEAD = serve;
