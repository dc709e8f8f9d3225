// Reading generations: the gallery list (cursor-paginated, filtered) and one
// generation with its delivery timeline, always as some owner sees them.
import "server-only";
import { prisma } from "@/lib/db";
import type { GenerationState, Prisma } from "@/lib/generated/prisma/client";
import { readCreditCharges } from "./charges";
import type { Generation } from "./generation";
import { normalizeQuery } from "./search-text";
import { asSeenBy, ownRowIds, visibleTo, type OwnerScope } from "./visibility";

export const PAGE_SIZE_MAX = 100;

export type GenerationPage = { items: Generation[]; nextCursor: string | null };

export async function listGenerations({
  owner,
  cursor,
  limit,
  state,
  model,
  q,
}: {
  owner: OwnerScope;
  cursor?: string;
  limit: number;
  state?: GenerationState;
  model?: string;
  /** Prompt text to search for, case-insensitive. */
  q?: string;
}): Promise<GenerationPage> {
  const search = normalizeQuery(q);
  const where: Prisma.GenerationWhereInput = {
    AND: [
      visibleTo(owner),
      {
        // Deleted from the gallery: kept for accounting, never listed.
        deletedAt: null,
        ...(state ? { state } : {}),
        ...(model ? { model } : {}),
        ...(search ? { promptSearch: { contains: search } } : {}),
      },
    ],
  };
  // A cursor from someone else's list is not a way to peek: it must be a row this owner can see.
  if (cursor && !(await prisma.generation.count({ where: { AND: [visibleTo(owner), { id: cursor }] } }))) {
    return { items: [], nextCursor: null };
  }
  const rows = await prisma.generation.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    include: { mediaCopies: true },
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const page = rows.slice(0, limit);
  // What each card charged its owner: one read for the page.
  const charges = await readCreditCharges(ownRowIds(owner, page));
  const now = Date.now();
  const items = page.map((row) => asSeenBy(owner, row, charges, now));
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}

/** Null when the generation does not exist or is not this owner's to see: callers answer 404 either way. */
export async function getGeneration({ id, owner }: { id: string; owner: OwnerScope }): Promise<Generation | null> {
  const row = await prisma.generation.findFirst({ where: { AND: [{ id }, visibleTo(owner)] }, include: { mediaCopies: true } });
  return row ? asSeenBy(owner, row, await readCreditCharges(ownRowIds(owner, [row]))) : null;
}

export type DeliveryEntry = {
  id: number;
  source: "CALLBACK" | "POLL";
  outcome: string;
  reportedState: string | null;
  detail: string | null;
  createdAt: string;
};

export async function listDeliveries({ generationId }: { generationId: string }): Promise<DeliveryEntry[]> {
  // The latest 200, oldest first: a long-polled task keeps its ending.
  const rows = await prisma.delivery.findMany({
    where: { generationId },
    orderBy: { id: "desc" },
    take: 200,
  });
  return rows.reverse().map((d) => ({ ...d, createdAt: d.createdAt.toISOString() }));
}
