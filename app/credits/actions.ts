"use server";
// Buying a pack: parse, start a Stripe Checkout for the viewer, and send the
// browser to its hosted page. Expected failures come back as the form's state.
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { startCheckout } from "@/lib/payments/checkout";
import { visitorKey } from "@/lib/rate-limit";
import { getViewer } from "@/lib/viewer/get-viewer";

export type BuyCreditsState = { status: "idle" | "error"; message?: string };

const buySchema = z.object({ packId: z.string().min(1).max(100) });

export async function buyCreditsAction(_previous: BuyCreditsState, formData: FormData): Promise<BuyCreditsState> {
  const parsed = buySchema.safeParse({ packId: formData.get("packId") });
  if (!parsed.success) return { status: "error", message: "Choose a pack to buy." };
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to buy credits." };
  const checkout = await startCheckout({ viewer, packId: parsed.data.packId, visitor: visitorKey(await headers()) });
  if (checkout.status === "error") return { status: "error", message: checkout.message };
  redirect(checkout.url);
}
