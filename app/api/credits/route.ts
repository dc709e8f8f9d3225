import { getCreditBalance } from "@/lib/gateway/balance";
import { route } from "@/lib/http";

export const GET = route(async () => Response.json({ credits: await getCreditBalance() }));
