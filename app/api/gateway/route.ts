// Whether the video gateway answers, for the site-wide banner: `{ reachable: true }`,
// or a 503. It reads the operator's balance (cached for a few seconds) and never shows it.
import { getCreditBalance } from "@/lib/gateway/balance";
import { route } from "@/lib/http";

export const GET = route(async () => {
  await getCreditBalance();
  return Response.json({ reachable: true }, { headers: { "Cache-Control": "no-store" } });
});
