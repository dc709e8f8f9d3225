// Reads of purchases for the people who made them: whether a Checkout
// Session has been credited yet (the success page says "processing" until it is).
import "server-only";
import { prisma } from "@/lib/db";

export type PurchaseView = { checkoutSessionId: string; packId: string; credits: number; status: "PAID" | "PARTIALLY_REFUNDED" | "REFUNDED"; createdAt: Date };

/** The owner's purchase of a Checkout Session, or null (not credited yet, or another owner's). */
export async function findPurchase({ checkoutSessionId, ownerId }: { checkoutSessionId: string; ownerId: string }): Promise<PurchaseView | null> {
  return prisma.purchase.findFirst({
    where: { checkoutSessionId, ownerId },
    select: { checkoutSessionId: true, packId: true, credits: true, status: true, createdAt: true },
  });
}
