// One input of a generation as its owner recognises it: an uploaded frame or
// clip as a thumbnail (served by the owner-scoped upload route), anything
// else as text. An upload deleted since (retention, or its generation's
// inputs removed) says so instead of showing a broken picture.
import { isUploadId } from "@/lib/models/input-schema";
import { FORMAT_LABEL, isVideoFormat, type MediaFormat } from "@/lib/models/media-limits";

/** What the page knows of an upload the viewer owns. */
export type InputUpload = { id: string; format: MediaFormat; width: number; height: number };

export function InputValue({ value, uploads }: { value: unknown; uploads: ReadonlyMap<string, InputUpload> }) {
  if (Array.isArray(value)) {
    return (
      <ul className="flex flex-wrap gap-2">
        {value.map((v, i) => (
          <li key={i} className="min-w-0 break-all">
            <InputValue value={v} uploads={uploads} />
          </li>
        ))}
      </ul>
    );
  }
  if (isUploadId(value)) return <UploadThumbnail id={value} upload={uploads.get(value)} />;
  return <span className="break-words">{typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}</span>;
}

function UploadThumbnail({ id, upload }: { id: string; upload?: InputUpload }) {
  if (!upload) {
    return (
      <span className="text-zinc-600 dark:text-zinc-400" title={id}>
        An uploaded file, since deleted
      </span>
    );
  }
  const label = `${FORMAT_LABEL[upload.format]} · ${upload.width}×${upload.height}`;
  const src = `/api/uploads/${upload.id}`;
  const frame = "h-24 w-auto max-w-full rounded-lg bg-zinc-100 object-contain ring-1 ring-zinc-200 dark:bg-zinc-950 dark:ring-zinc-800";
  return (
    <figure className="inline-flex flex-col gap-1">
      <a href={src} target="_blank" rel="noreferrer" className="rounded-lg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
        {isVideoFormat(upload.format) ? (
          // Only its first frame is fetched (metadata), until the person opens it.
          <video src={src} muted playsInline preload="metadata" className={frame} aria-label={`Uploaded clip, ${label}`} />
        ) : (
          // eslint-disable-next-line @next/next/no-img-element -- an owner-scoped route, not a static asset Next could optimise
          <img src={src} alt={`Uploaded image, ${label}`} width={upload.width} height={upload.height} loading="lazy" className={frame} />
        )}
      </a>
      <figcaption className="text-xs text-zinc-600 dark:text-zinc-400">{label}</figcaption>
    </figure>
  );
}
