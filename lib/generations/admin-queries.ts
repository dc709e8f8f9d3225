// What support reads in /admin: every owner's generations, spend per owner,
// and the delivery log. Never scoped to a viewer; only app/admin calls these.
import "server-only";
import { accountOwnerId } from "@/lib/auth/session";
import { prisma } from "@/lib/db";
import type { Prisma } from "@/lib/generated/prisma/client";
import { readCreditCharges } from "./charges";
import { toGeneration, type Generation } from "./generation";

const ACCOUNT_PREFIX = accountOwnerId("");

export type OwnedGeneration = Generation & { ownerId: string };
export type OwnerSpend = { ownerId: string; generations: number; inFlight: number; charged: number; lastAt: string };

/** The latest generations of every owner, with what each charged its owner; `q` matches an owner id, an account's email, a generation id or a task id exactly. */
export async function listAllGenerations({ q, limit = 50 }: { q?: string; limit?: number }): Promise<OwnedGeneration[]> {
  const account = q?.includes("@") ? await prisma.user.findUnique({ where: { email: q.toLowerCase() }, select: { id: true } }) : null;
  const ownerIds = [q, account ? accountOwnerId(account.id) : undefined].filter((id): id is string => Boolean(id));
  const where: Prisma.GenerationWhereInput = q ? { OR: [{ ownerId: { in: ownerIds } }, { id: q }, { taskId: q }] } : {};
  const rows = await prisma.generation.findMany({ where, orderBy: [{ createdAt: "desc" }, { id: "desc" }], take: limit });
  const charges = await readCreditCharges(rows.map((row) => row.id));
  const now = Date.now();
  return rows.map((row) => ({ ...toGeneration(row, now, charges.get(row.id) ?? null), ownerId: row.ownerId }));
}

/** The email of each owner that is an account (guests have none), for naming owners where support reads them. */
export async function ownerEmails(ownerIds: readonly string[]): Promise<Map<string, string>> {
  const userIds = [...new Set(ownerIds.filter((id) => id.startsWith(ACCOUNT_PREFIX)).map((id) => id.slice(ACCOUNT_PREFIX.length)))];
  if (userIds.length === 0) return new Map();
  const users = await prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } });
  return new Map(users.map((user) => [accountOwnerId(user.id), user.email]));
}

/** Per owner since `since`: generations made, estimates still in flight, and credits charged. Busiest first. */
export async function spendByOwner({ since, limit = 50 }: { since: Date; limit?: number }): Promise<OwnerSpend[]> {
  const [made, inFlight, charged] = await Promise.all([
    prisma.generation.groupBy({
      by: ["ownerId"],
      where: { createdAt: { gte: since } },
      _count: { _all: true },
      _max: { createdAt: true },
    }),
    prisma.generation.groupBy({ by: ["ownerId"], where: { state: { in: ["SUBMITTING", "PENDING"] } }, _sum: { costEstimate: true } }),
    prisma.generation.groupBy({ by: ["ownerId"], where: { state: "SUCCESS", completedAt: { gte: since } }, _sum: { creditsConsumed: true } }),
  ]);
  const owners = new Map<string, OwnerSpend>();
  const entry = (ownerId: string) =>
    owners.get(ownerId) ?? owners.set(ownerId, { ownerId, generations: 0, inFlight: 0, charged: 0, lastAt: "" }).get(ownerId)!;
  for (const m of made) Object.assign(entry(m.ownerId), { generations: m._count._all, lastAt: m._max.createdAt?.toISOString() ?? "" });
  for (const f of inFlight) entry(f.ownerId).inFlight = f._sum.costEstimate ?? 0;
  for (const c of charged) entry(c.ownerId).charged = c._sum.creditsConsumed ?? 0;
  return [...owners.values()].sort((a, b) => b.charged + b.inFlight - (a.charged + a.inFlight) || b.generations - a.generations).slice(0, limit);
}

export type LoggedDelivery = {
  id: number;
  generationId: string | null;
  ownerId: string | null;
  taskId: string | null;
  source: string;
  outcome: string;
  reportedState: string | null;
  detail: string | null;
  createdAt: string;
};

/** The latest callback attempts and polls, newest first, with each one's owner. */
export async function listRecentDeliveries({ q, limit = 100 }: { q?: string; limit?: number }): Promise<LoggedDelivery[]> {
  const where: Prisma.DeliveryWhereInput = q ? { OR: [{ generationId: q }, { taskId: q }, { generation: { ownerId: q } }] } : {};
  const rows = await prisma.delivery.findMany({
    where,
    orderBy: { id: "desc" },
    take: limit,
    include: { generation: { select: { ownerId: true } } },
  });
  return rows.map(({ generation, ...d }) => ({ ...d, ownerId: generation?.ownerId ?? null, createdAt: d.createdAt.toISOString() }));
}
