import { getCompletionTimes } from "@/lib/generations/completion-history";
import { jsonWithEtag, route } from "@/lib/http";

/** Typical completion time per model and duration, for the gallery's progress bars. */
export const GET = route(async (request) => jsonWithEtag(request, { completionTimes: await getCompletionTimes() }));
