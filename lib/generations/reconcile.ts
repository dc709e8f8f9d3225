// The cron's work: poll every stale PENDING task in batches, and keep the
// delivery log within its retention bound.
import "server-only";
import { prisma } from "@/lib/db";
import { refreshStaleGenerations } from "./refresh";

const DELIVERY_RETENTION_DAYS = 30;
const MAX_BATCHES = 20;

export async function reconcile(): Promise<{ polled: number; prunedDeliveries: number }> {
  let polled = 0;
  for (let batch = 0; batch < MAX_BATCHES; batch++) {
    const count = await refreshStaleGenerations();
    polled += count;
    if (count === 0) break;
  }
  const cutoff = new Date(Date.now() - DELIVERY_RETENTION_DAYS * 86_400_000);
  const { count: prunedDeliveries } = await prisma.delivery.deleteMany({ where: { createdAt: { lt: cutoff } } });
  return { polled, prunedDeliveries };
}
