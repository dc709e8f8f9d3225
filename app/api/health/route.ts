import { checkDatabase } from "@/lib/health";
import { route } from "@/lib/http";

export const GET = route(async () => {
  const database = await checkDatabase();
  return Response.json({ ok: database, database: database ? "ok" : "unavailable" }, { status: database ? 200 : 503 });
});
