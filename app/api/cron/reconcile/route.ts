// Refreshes every stale PENDING task, for when nobody has the page open.
// Call it from a scheduler with `Authorization: Bearer $CRON_SECRET`.
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { reconcile } from "@/lib/generations/reconcile";
import { route } from "@/lib/http";
import { hasBearerToken } from "@/lib/viewer/safe-equal";

export const GET = route(async (request) => {
  if (!hasBearerToken(request.headers.get("authorization"), env.CRON_SECRET)) throw new AppError("unauthorized", "Missing or wrong CRON_SECRET.");
  return Response.json(await reconcile());
});
