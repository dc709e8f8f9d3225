// Which stored copy a public link may serve, for a shared video and for each
// video of a shared comparison alike: the kit's own copy of the result (never
// the gateway's link: it expires, and names the gateway), stored in full and
// a video. The rule is read on every public request and at share time.
import "server-only";
import { ensureVideoSize } from "@/lib/copies/video-size";
import { getMediaStorage } from "@/lib/storage/storage";

/** The copy's columns the public routes read (the `select` of a generation's `mediaCopies`, position 0, DONE). */
export const PUBLIC_COPY = { id: true, state: true, storageKey: true, contentType: true, size: true, sha256: true, stillKey: true, stillCheckedAt: true, width: true, height: true } as const;

/** Its copies filtered as the public routes ask: the result's, stored. */
export const PUBLIC_COPIES = { where: { position: 0, state: "DONE" }, select: PUBLIC_COPY } as const;

type CopyRow = {
  id: string;
  state: string;
  storageKey: string;
  contentType: string | null;
  size: number | null;
  sha256: string | null;
  stillKey: string | null;
  stillCheckedAt: Date | null;
  width: number | null;
  height: number | null;
};

export type PublicCopy = CopyRow & { contentType: string; size: number };

/** What a public page says about the file it plays. */
export type PublicVideo = { contentType: string; size: number; width: number | null; height: number | null; hasStill: boolean };

/** The copy a public route serves, or null (not stored yet, removed, or not a video). */
export function publicCopyOf(copies: CopyRow[]): PublicCopy | null {
  const copy = copies[0];
  if (!copy || copy.size === null || !copy.contentType?.startsWith("video/")) return null;
  return { ...copy, size: copy.size, contentType: copy.contentType };
}

export function describePublicCopy(copy: PublicCopy): PublicVideo {
  // A still not looked for yet is offered: its route makes it on the first request.
  return { contentType: copy.contentType, size: copy.size, width: copy.width, height: copy.height, hasStill: copy.stillKey !== null || copy.stillCheckedAt === null };
}

type ShareableCopy = { id: string; storageKey: string; contentType: string | null; width: number | null; height: number | null };

/** True when this copy can be served publicly: a stored video, and a media store configured. */
export async function servablePublicly(copy: { contentType: string | null } | undefined): Promise<boolean> {
  return Boolean(copy?.contentType?.startsWith("video/")) && (await getMediaStorage()) !== null;
}

/**
 * At a video's share time: true when its copy can be served publicly. Reads
 * the video's size once, here, rather than on a crawler's request: the video's
 * link preview and public page state it (a comparison's do not).
 */
export async function prepareForSharing(copy: ShareableCopy | undefined): Promise<boolean> {
  const storage = await getMediaStorage();
  if (!copy || !storage || !copy.contentType?.startsWith("video/")) return false;
  await ensureVideoSize({ copy, storage });
  return true;
}
