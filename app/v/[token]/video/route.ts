// A shared video's file, for anyone holding the link (no cookie needed):
// byte ranges and its stored type, or a one-minute signed redirect to the
// bucket. What og:video and the player point at.
import { route } from "@/lib/http";
import { serveSharedVideo } from "@/lib/sharing/shared-video";

type Context = { params: Promise<{ token: string }> };

const serve = route<Context>(async (request, { params }) => serveSharedVideo({ token: (await params).token, request }));

export const GET = serve;
export const HEAD = serve;
