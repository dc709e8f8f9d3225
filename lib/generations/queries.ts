// Reading generations: the gallery list (cursor-paginated, filtered) and one
// generation with its delivery timeline.
import "server-only";
import { prisma } from "@/lib/db";
import type { GenerationState, Prisma } from "@/lib/generated/prisma/client";
import { toGeneration, type Generation } from "./generation";
import { normalizeQuery } from "./search-text";

export const PAGE_SIZE_MAX = 100;

export type GenerationPage = { items: Generation[]; nextCursor: string | null };

export async function listGenerations({
  cursor,
  limit = 24,
  state,
  model,
  q,
}: {
  cursor?: string;
  limit?: number;
  state?: GenerationState;
  model?: string;
  /** Prompt text to search for, case-insensitive. */
  q?: string;
}): Promise<GenerationPage> {
  const search = normalizeQuery(q);
  const where: Prisma.GenerationWhereInput = {
    // Deleted from the gallery: kept for accounting, never listed.
    deletedAt: null,
    ...(state ? { state } : {}),
    ...(model ? { model } : {}),
    ...(search ? { promptSearch: { contains: search } } : {}),
  };
  const rows = await prisma.generation.findMany({
    where,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    ...(cursor ? { cursor: { id: cursor }, skip: 1 } : {}),
  });
  const now = Date.now();
  const items = rows.slice(0, limit).map((row) => toGeneration(row, now));
  return { items, nextCursor: rows.length > limit ? (items.at(-1)?.id ?? null) : null };
}

export async function getGeneration({ id }: { id: string }): Promise<Generation | null> {
  const row = await prisma.generation.findUnique({ where: { id } });
  return row ? toGeneration(row) : null;
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
