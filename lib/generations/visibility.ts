// Who sees which generation, in one place so that the gallery's list, a single
// read (API, detail page, stored media) and the live event stream never
// disagree: the query filter, the view of another owner's row, and what a
// live event tells each reader.
import type { GenerationEvent, LiveChange } from "@/lib/events";
import type { Generation as GenerationRow, Prisma } from "@/lib/generated/prisma/client";
import { toGeneration, type CreditCharge, type Generation } from "./generation";

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

/**
 * A row as this reader sees it, with what it charged its owner (`charges`,
 * by id: none listed is none held). Another owner's shows the video and the
 * prompt, never the inputs (they may hold private URLs), what it cost them or
 * its public link (theirs to give).
 */
export function asSeenBy(scope: OwnerScope, row: GenerationRow, charges: ReadonlyMap<string, CreditCharge>, now = Date.now()): Generation {
  if (row.ownerId === scope.ownerId) return toGeneration(row, now, charges.get(row.id) ?? null);
  return { ...toGeneration(row, now), taskId: null, input: {}, gatewayMetadata: null, share: null, batchId: null, showcase: true };
}

/** The generations whose charge this reader may see: their own. */
export const ownRowIds = (scope: OwnerScope, rows: readonly Pick<GenerationRow, "id" | "ownerId">[]) =>
  rows.filter((row) => row.ownerId === scope.ownerId).map((row) => row.id);

/**
 * What a reader's stream is sent of a live event, or undefined for nothing:
 * their own generations, and with `shared` another owner's finished video
 * (its card carries nothing `asSeenBy` hides). A deleted generation is
 * announced as removed, without its card, to everyone who may have shown it,
 * so every tab drops it at once.
 */
export function eventSeenBy({ ownerId, shared }: OwnerScope): (event: GenerationEvent) => LiveChange | undefined {
  return (event) => {
    if (event.ownerId !== ownerId && !(shared && event.state === "SUCCESS")) return undefined;
    const change: LiveChange = { id: event.id, state: event.state, updatedAt: event.updatedAt };
    if (event.deleted) return { ...change, removed: true };
    if (!event.card) return change;
    if (event.ownerId === ownerId) return { ...change, card: event.card };
    // What another owner's video cost them is theirs alone.
    return { ...change, card: { ...event.card, charge: undefined } };
  };
}
