import { AppError } from "@/lib/errors";
import { checkEverything, hasCronSecret, isDatabaseUp } from "@/lib/doctor/health";
import { route } from "@/lib/http";

export const GET = route(async (request) => {
  if (new URL(request.url).searchParams.get("verbose") === "1") {
    if (!hasCronSecret(request.headers.get("authorization"))) {
      throw new AppError("unauthorized", "The verbose report needs Authorization: Bearer $CRON_SECRET.");
    }
    const report = await checkEverything();
    return Response.json(report, { status: report.ok ? 200 : 503, headers: { "Cache-Control": "no-store" } });
  }
  const database = await isDatabaseUp();
  return Response.json({ ok: database, database: database ? "ok" : "unavailable" }, { status: database ? 200 : 503 });
});
