"use client";
// The detail page's result: the player (or "expired") and every result URL.
import { ResultVideo, useResultExpiry } from "@/app/_components/result-video";

export function Result({ urls, prompt }: { urls: string[]; prompt: string }) {
  const { expired, onExpired } = useResultExpiry();
  const [first] = urls;
  if (!first) return null;
  return (
    <section aria-label="Result" className="space-y-3">
      <ResultVideo url={first} label={`Video: ${prompt.slice(0, 80)}`} expired={expired} onExpired={onExpired} className="rounded-2xl" />
      <ul className="space-y-1 text-sm">
        {urls.map((url, index) => (
          <li key={url} className="flex min-w-0 items-center gap-3">
            <a
              href={url}
              download
              target="_blank"
              rel="noopener noreferrer"
              className="shrink-0 rounded font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400"
            >
              Download{urls.length > 1 ? ` ${index + 1}` : ""}
            </a>
            <code className="truncate text-xs text-zinc-600 dark:text-zinc-400" title={url}>
              {url}
            </code>
          </li>
        ))}
      </ul>
    </section>
  );
}
