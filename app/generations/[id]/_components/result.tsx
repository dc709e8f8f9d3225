"use client";
// The detail page's result: the player (the stored copy once it exists, the
// gateway's link until then), the copy's status, every URL of both, and how
// many links past the kept ones the gateway named.
import { ResultVideo, useResultExpiry } from "@/app/_components/result-video";
import type { Generation } from "@/lib/generations/generation";
import { playbackUrl, stillUrl, storedAsFile, type StoredMedia } from "@/lib/copies/media-copy";

const linkClass =
  "shrink-0 rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400";

export function Result({ generation }: { generation: Pick<Generation, "resultUrls" | "resultUrlsDropped" | "storedMedia" | "prompt"> }) {
  const { resultUrls: urls, resultUrlsDropped: dropped, storedMedia, prompt } = generation;
  const url = playbackUrl(generation);
  const stored = url !== undefined && url !== urls[0];
  const { expired, onExpired } = useResultExpiry(url);
  if (!url) return null;
  return (
    <section aria-label="Result" className="space-y-3">
      <ResultVideo url={url} label={`Video: ${prompt.slice(0, 80)}`} expired={expired} onExpired={onExpired} stored={stored} file={stored && storedAsFile(generation)} poster={stillUrl(generation)} className="rounded-2xl" />
      <ul className="space-y-2 text-sm">
        {urls.map((gatewayUrl, index) => {
          const copy = storedMedia.find((m) => m.position === index);
          const suffix = urls.length > 1 ? ` ${index + 1}` : "";
          return (
            <li key={gatewayUrl} className="space-y-1">
              <div className="flex min-w-0 items-center gap-3">
                <span className="w-28 shrink-0 text-zinc-600 dark:text-zinc-400">Stored copy{suffix}</span>
                {copy?.url ? (
                  <a href={copy.url} download className={linkClass}>
                    Download
                  </a>
                ) : null}
                <span data-testid="copy-status">{describeCopy(copy)}</span>
              </div>
              <div className="flex min-w-0 items-center gap-3">
                <span className="w-28 shrink-0 text-zinc-600 dark:text-zinc-400">Gateway link{suffix}</span>
                <a href={gatewayUrl} download target="_blank" rel="noopener noreferrer" className={linkClass}>
                  Download
                </a>
                <code className="truncate text-xs text-zinc-600 dark:text-zinc-400" title={gatewayUrl}>
                  {gatewayUrl}
                </code>
              </div>
            </li>
          );
        })}
      </ul>
      {dropped > 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="dropped-results">
          {dropped} more result {dropped === 1 ? "link was" : "links were"} dropped: the app keeps and copies the first {urls.length} only.
        </p>
      ) : null}
    </section>
  );
}

function describeCopy(copy: StoredMedia | undefined): string {
  if (!copy) return "not stored (storage off, or not scheduled yet)";
  switch (copy.status) {
    case "done":
      return `stored${copy.kind === "file" ? " as a file (not a video)" : ""}${copy.size === null ? "" : ` · ${formatBytes(copy.size)}`}`;
    case "pending":
      return copy.attempts === 0 ? "waiting to be copied" : `retrying after ${copy.attempts} failed attempt(s): ${copy.error ?? ""}`;
    case "copying":
      return "copying…";
    case "failed":
      return `copy failed after ${copy.attempts} attempt(s): ${copy.error ?? "unknown error"}`;
    case "deleted":
      return "deleted (retention)";
  }
}

function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.round(bytes / 1024))} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
