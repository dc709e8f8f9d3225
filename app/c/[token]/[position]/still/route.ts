// A shared comparison's video's still, for anyone holding the link: the
// player's poster and the comparison's link preview image.
import { route } from "@/lib/http";
import { serveComparisonStill } from "@/lib/sharing/shared-comparison";

type Context = { params: Promise<{ token: string; position: string }> };

const serve = route<Context>(async (request, { params }) => serveComparisonStill({ ...(await params), request }));

export const GET = serve;
export const HEAD = serve;
