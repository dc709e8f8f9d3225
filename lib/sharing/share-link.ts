// The owner's view of a video's public link: its address, derived again from
// the stored seed (share-token.ts), and what the public page shows.
import { env } from "@/lib/env";
import { shareKeyOf, shareTokenFor } from "./share-token";

export type ShareLink = {
  /** The public page, absolute (PUBLIC_BASE_URL): what the owner copies. */
  url: string;
  /** Whether the public page shows the prompt. */
  showPrompt: boolean;
  sharedAt: string;
};

type ShareColumns = { id: string; shareKey: string | null; shareSeed: string | null; sharedAt: Date | null; shareShowsPrompt: boolean };

/** Paths of a share's public routes, from its token. */
export const sharePaths = (token: string) => ({
  page: `/v/${token}`,
  video: `/v/${token}/video`,
  still: `/v/${token}/still`,
  embed: `/v/${token}/embed`,
});

export const absoluteUrl = (path: string) => new URL(path, env.PUBLIC_BASE_URL).toString();

/** The row's link, or null when it is not shared (or its link no longer opens: WEBHOOK_SECRET was rotated). */
export function shareLinkOf(row: ShareColumns): ShareLink | null {
  if (!row.shareKey || !row.shareSeed || !row.sharedAt) return null;
  const token = shareTokenFor({ generationId: row.id, seed: row.shareSeed }, env.WEBHOOK_SECRET);
  if (shareKeyOf(token) !== row.shareKey) return null;
  return { url: absoluteUrl(sharePaths(token).page), showPrompt: row.shareShowsPrompt, sharedAt: row.sharedAt.toISOString() };
}
