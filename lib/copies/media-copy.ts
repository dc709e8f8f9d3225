// A result's stored copy as routes and pages see it, and which URL plays:
// the app's copy once it exists, the gateway's link until then.
import type { MediaCopy as MediaCopyRow } from "@/lib/generated/prisma/client";

/** What a copy whose bytes are not an MP4, QuickTime or WebM video is stored and served as: a download, never played. */
export const OPAQUE_CONTENT_TYPE = "application/octet-stream";

export type MediaCopyStatus = "pending" | "copying" | "done" | "failed" | "deleted";

export type StoredMedia = {
  position: number;
  status: MediaCopyStatus;
  /** The app's URL for the copy (it serves or redirects), once done. */
  url: string | null;
  /** The app's URL for the copy's still image; null while there is no copy, or when its video could not be decoded. */
  stillUrl: string | null;
  /** "file": the bytes are not an MP4, QuickTime or WebM video, so the copy is a download with no still, never played. */
  kind: "video" | "file";
  size: number | null;
  attempts: number;
  /** Why the last attempt failed, in words safe to show. */
  error: string | null;
  copiedAt: string | null;
};

const STATUS: Record<MediaCopyRow["state"], MediaCopyStatus> = {
  PENDING: "pending",
  COPYING: "copying",
  DONE: "done",
  FAILED: "failed",
  DELETING: "deleted",
  DELETED: "deleted",
};

export function toStoredMedia(row: MediaCopyRow): StoredMedia {
  const status = STATUS[row.state];
  return {
    position: row.position,
    status,
    url: status === "done" ? `/api/media/${row.id}` : null,
    // Not yet tried (a copy stored before stills existed): the first request makes it.
    stillUrl: status === "done" && (row.stillKey !== null || row.stillCheckedAt === null) ? `/api/media/${row.id}/still` : null,
    // Set from the sniffed bytes when the copy was stored (lib/copies/stills.ts).
    kind: row.contentType === OPAQUE_CONTENT_TYPE && row.stillKey === null ? "file" : "video",
    size: row.size,
    attempts: row.attempts,
    error: row.lastError,
    copiedAt: row.completedAt?.toISOString() ?? null,
  };
}

/** The URL to play result `position`: the stored copy when it is done, else the gateway's. */
export function playbackUrl(generation: { resultUrls: string[]; storedMedia: StoredMedia[] }, position = 0): string | undefined {
  return generation.storedMedia.find((m) => m.position === position && m.url)?.url ?? generation.resultUrls[position];
}

/** Whether result `position` is stored as an opaque file: nothing to play or preview, a download only. */
export function storedAsFile(generation: { storedMedia: StoredMedia[] }, position = 0): boolean {
  return generation.storedMedia.some((m) => m.position === position && m.status === "done" && m.kind === "file");
}

/** The still of result `position`, when its stored copy has one. */
export function stillUrl(generation: { storedMedia: StoredMedia[] }, position = 0): string | null {
  return generation.storedMedia.find((m) => m.position === position)?.stillUrl ?? null;
}

export const isCopying = (generation: { storedMedia: StoredMedia[] }) =>
  generation.storedMedia.some((m) => m.status === "pending" || m.status === "copying");
