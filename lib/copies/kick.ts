// Readers as a fallback runner: a list or page showing a SUCCESS generation
// whose copy is missing or unfinished nudges its jobs (in the background; the
// lease makes repeated nudges free), as readers nudge polling.
import "server-only";
import type { Generation } from "@/lib/generations/generation";
import { requestMediaCopies } from "./copy-jobs";
import { isCopying } from "./media-copy";
import { mediaStorageEnabled } from "@/lib/storage/storage";

export function kickMediaCopies(generations: readonly Generation[]): void {
  if (!mediaStorageEnabled()) return;
  const ids = generations
    .filter((g) => g.state === "SUCCESS" && g.resultUrls.length > 0 && (g.storedMedia.length === 0 || isCopying(g)))
    .map((g) => g.id);
  requestMediaCopies(ids);
}
