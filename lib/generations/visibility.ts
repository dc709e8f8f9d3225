// Who sees which generation, in one place so that the gallery's list, a single
// read (API, detail page, stored media) and the live event stream never
// disagree: the query filter, the view of another owner's row, and the event
// predicate.
import type { GenerationEvent } from "@/lib/events";
import type { Generation as GenerationRow, Prisma } from "@/lib/generated/prisma/client";
import { toGeneration, type Generation } from "./generation";

/**
 * Whose generations a reader sees: the owner's own, and with `shared` (the
 * GALLERY_SCOPE=shared showcase) everyone else's finished videos too, without
 * their inputs.
 */
export type OwnerScope = { ownerId: string; shared?: boolean };

/**
 * The rows a reader may read. An owner reads their own, deleted ones too (a
 * list leaves those out itself); the showcase shows another owner's video
 * only while it is finished and not deleted: once its owner deletes it,
 * everyone else gets the 404 of a missing one.
 */
export function visibleTo({ ownerId, shared }: OwnerScope): Prisma.GenerationWhereInput {
  return shared ? { OR: [{ ownerId }, { state: "SUCCESS", deletedAt: null }] } : { ownerId };
}

/** A row as this reader sees it: another owner's shows the video and the prompt, never the inputs (they may hold private URLs). */
export function asSeenBy(scope: OwnerScope, row: GenerationRow, now = Date.now()): Generation {
  const generation = toGeneration(row, now);
  if (row.ownerId === scope.ownerId) return generation;
  return { ...generation, taskId: null, input: {}, gatewayMetadata: null };
}

/**
 * The live events a reader's stream carries: "X changed" for what their
 * gallery may show. A showcase video's deletion is announced as a change of a
 * SUCCESS too, so every tab showing it refetches, no longer finds it (above),
 * and drops the card.
 */
export function eventVisibleTo({ ownerId, shared }: OwnerScope): (event: GenerationEvent) => boolean {
  return (event) => event.ownerId === ownerId || (!!shared && event.state === "SUCCESS");
}
