// Refreshes every stale PENDING task, for when nobody has the page open.
// Call it from a scheduler with `Authorization: Bearer $CRON_SECRET`.
import { timingSafeEqual } from "node:crypto";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { reconcile } from "@/lib/generations/reconcile";
import { route } from "@/lib/http";

export const GET = route(async (request) => {
  if (!isAuthorized(request.headers.get("authorization"))) throw new AppError("unauthorized", "Missing or wrong CRON_SECRET.");
  return Response.json(await reconcile());
});

function isAuthorized(header: string | null): boolean {
  if (!env.CRON_SECRET || !header) return false;
  const given = Buffer.from(header);
  const expected = Buffer.from(`Bearer ${env.CRON_SECRET}`);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
