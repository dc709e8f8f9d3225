// A shared video's still, for anyone holding the link: og:image and the player's poster.
import { route } from "@/lib/http";
import { serveSharedStill } from "@/lib/sharing/shared-video";

type Context = { params: Promise<{ token: string }> };

const serve = route<Context>(async (request, { params }) => serveSharedStill({ token: (await params).token, request }));

export const GET = serve;
export const HEAD = serve;
