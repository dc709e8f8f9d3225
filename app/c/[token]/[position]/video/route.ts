// A shared comparison's video, by its place in the batch, for anyone holding
// the link (no cookie needed): byte ranges and its stored type, or a
// one-minute signed redirect to the bucket, as a shared video's file.
import { route } from "@/lib/http";
import { serveComparisonVideo } from "@/lib/sharing/shared-comparison";

type Context = { params: Promise<{ token: string; position: string }> };

const serve = route<Context>(async (request, { params }) => serveComparisonVideo({ ...(await params), request }));

export const GET = serve;
export const HEAD = serve;
