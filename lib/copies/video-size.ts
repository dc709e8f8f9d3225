// A stored video's display size, read from its bytes (the container's
// headers, no decoding) the first time something needs it (a shared video's
// link preview states it), then kept on the copy's row. Never throws: a size
// that cannot be read is null, and the preview goes without it.
import "server-only";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MAX_CONTAINER_BYTES, probeVideoContainer } from "@/lib/media/video-container";
import { isVideoFormat } from "@/lib/models/media-limits";
import { readHead, sniffFormat } from "@/lib/media/sniff";
import type { MediaStorage } from "@/lib/storage/storage";
import { updateMediaCopyIf } from "./update-if";

export type VideoSize = { width: number; height: number };

export async function ensureVideoSize({
  copy,
  storage,
}: {
  copy: { id: string; storageKey: string; width: number | null; height: number | null };
  storage: MediaStorage;
}): Promise<VideoSize | null> {
  if (copy.width && copy.height) return { width: copy.width, height: copy.height };
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), "framehook-size-"));
  try {
    const file = path.join(dir, "video");
    if (!(await storage.getFile({ key: copy.storageKey, file, maxBytes: MAX_CONTAINER_BYTES }))) return null;
    const sniffed = sniffFormat(await readHead(file));
    if ("refused" in sniffed || !isVideoFormat(sniffed.format)) return null;
    const probe = await probeVideoContainer({ file, format: sniffed.format });
    if (!probe.ok) return null;
    // What a player shows: a quarter turn swaps the coded width and height.
    const turned = probe.rotation === 90 || probe.rotation === 270;
    const size = turned ? { width: probe.height, height: probe.width } : { width: probe.width, height: probe.height };
    await updateMediaCopyIf({ where: { id: copy.id, state: "DONE" }, data: size });
    return size;
  } catch (error) {
    console.warn(`[framehook] could not read the size of ${copy.storageKey}: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}
