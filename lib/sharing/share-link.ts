// The owner's view of a public link (a video's or a comparison's): its
// address, derived again from the stored seed (share-token.ts), and what the
// public page shows.
import { env } from "@/lib/env";
import { shareKeyOf, shareTokenFor } from "./share-token";

export type ShareLink = {
  /** The public page, absolute (PUBLIC_BASE_URL): what the owner copies. */
  url: string;
  /** Whether the public page shows the prompt. */
  showPrompt: boolean;
  sharedAt: string;
};

/** The columns a shared row (Generation or Batch) keeps. */
export type ShareColumns = { id: string; shareKey: string | null; shareSeed: string | null; sharedAt: Date | null; shareShowsPrompt: boolean };

/** Paths of a shared video's public routes, from its token. */
export const sharePaths = (token: string) => ({
  page: `/v/${token}`,
  video: `/v/${token}/video`,
  still: `/v/${token}/still`,
  embed: `/v/${token}/embed`,
});

/**
 * Paths of a shared comparison's public routes: the page, and each video's
 * file and still by its place in the batch (the order its models were asked
 * for): the links themselves name no generation.
 */
export const comparisonPaths = (token: string) => ({
  page: `/c/${token}`,
  video: (position: number) => `/c/${token}/${position}/video`,
  still: (position: number) => `/c/${token}/${position}/still`,
});

export const absoluteUrl = (path: string) => new URL(path, env.PUBLIC_BASE_URL).toString();

/** The row's link, or null when it is not shared (or its link no longer opens: WEBHOOK_SECRET was rotated). */
export function shareLinkOf(row: ShareColumns, kind: "generation" | "batch" = "generation"): ShareLink | null {
  if (!row.shareKey || !row.shareSeed || !row.sharedAt) return null;
  const subject = kind === "batch" ? { batchId: row.id } : { generationId: row.id };
  const token = shareTokenFor({ ...subject, seed: row.shareSeed }, env.WEBHOOK_SECRET);
  if (shareKeyOf(token) !== row.shareKey) return null;
  const page = kind === "batch" ? comparisonPaths(token).page : sharePaths(token).page;
  return { url: absoluteUrl(page), showPrompt: row.shareShowsPrompt, sharedAt: row.sharedAt.toISOString() };
}
