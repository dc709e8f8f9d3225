// Readiness: 200 when this instance should be sent traffic, 503 with the
// check that failed until the database answers, its migrations are current
// and the media store takes a write, and again from SIGTERM on. /api/health
// stays the cheap liveness probe; /api/ping answers without the database.
import { checkReadiness } from "@/lib/doctor/readiness";
import { route } from "@/lib/http";

export const dynamic = "force-dynamic";

export const GET = route(async () => {
  const readiness = await checkReadiness();
  return Response.json(readiness, { status: readiness.ready ? 200 : 503, headers: { "Cache-Control": "no-store" } });
});
