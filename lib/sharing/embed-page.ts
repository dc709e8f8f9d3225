// The embeddable player of a shared video: the one page of the app another
// site may frame (X's player card does; next.config.ts FRAMEABLE_PATHS). A
// plain HTML document with the browser's own <video> controls and no script,
// so that a framing site can do nothing with it but play the video.
import type { SharedVideo } from "./shared-video";

/** The player's own policy: no script, its media from anywhere (a bucket's signed redirect), any site may frame it. */
export const EMBED_POLICY = "default-src 'none'; media-src *; img-src *; style-src 'unsafe-inline'; frame-ancestors *; base-uri 'none'; form-action 'none'";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function embedPageHtml(video: SharedVideo, { siteName }: { siteName: string }): string {
  const title = escapeHtml(`${video.model.label} · ${siteName}`);
  const label = escapeHtml(video.prompt ? `Video: ${video.prompt.slice(0, 120)}` : `Video made with ${video.model.label}`);
  const poster = video.video.hasStill ? ` poster="${escapeHtml(video.paths.still)}"` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<style>html,body{margin:0;height:100%;background:#000}video{display:block;width:100%;height:100%;object-fit:contain}</style>
</head>
<body>
<video controls playsinline preload="metadata"${poster} src="${escapeHtml(video.paths.video)}" aria-label="${label}"></video>
</body>
</html>
`;
}
