import { getCreditBalance } from "@/lib/credits";
import { route } from "@/lib/http";

export const GET = route(async () => Response.json({ credits: await getCreditBalance() }));
