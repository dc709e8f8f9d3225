"use client";
// A media input of the form (a frame, reference videos): pick, drop or paste
// a file; it is checked here against the model's limits for a quick answer,
// uploaded with progress and a cancel button (XMLHttpRequest: fetch reports
// no upload progress) the way the server says (streamed to the app, or
// posted straight to an S3 bucket and then finalized), then checked again on
// the server from its bytes. The
// form submits the upload ids, in a hidden input named like the field ("From
// my gallery" adds one made from a stored result); until
// then they are kept in the tab's session, so a reload does not lose them.
import { useEffect, useEffectEvent, useId, useRef, useState } from "react";
import type { MediaFieldSpec } from "@/lib/models/catalog";
import { GalleryPicker } from "./gallery-picker";
import { readSavedUploads, saveUploads, takeOfferedFiles, uploadSessionKey, watchOfferedFiles, watchSavedUploads, type SavedUpload } from "./upload-session";
import { describeLimits, FORMAT_CONTENT_TYPE, formatBytes, formatSeconds, isVideoLimits, mediaProblems, type MediaFormat } from "@/lib/models/media-limits";

export type Uploaded = SavedUpload["upload"];
type Item = {
  key: string;
  name: string;
  previewUrl: string;
  video: boolean;
  status: "checking" | "uploading" | "done" | "error";
  progress: number;
  error?: string;
  upload?: Uploaded;
  /** Used by a generation already (a remix put it back): removing it here leaves the file to that generation. */
  used?: boolean;
  abort?: () => void;
};

type ErrorBody = { error?: { message?: string } };
/** POST /api/uploads/presign's answer. */
type UploadStart =
  | { method: "stream"; url: string }
  | { method: "post"; url: string; fields: Record<string, string>; maxBytes: number; finalize: { url: string; token: string } };

const FORMAT_OF: Record<string, MediaFormat> = Object.fromEntries(Object.entries(FORMAT_CONTENT_TYPE).map(([format, type]) => [type, format as MediaFormat]));

export function MediaField({
  field,
  modelId,
  modelLabel,
  errors,
  note,
  onChange,
  name = `input.${field.name}`,
  idScope,
}: {
  field: MediaFieldSpec;
  modelId: string;
  modelLabel: string;
  errors?: string[];
  /** A word about this field from elsewhere (a remix whose file must be added again). */
  note?: string;
  /** The uploaded files the field now submits, each time they change; `added`: one of them is new (not a remix's). */
  onChange?: (uploads: Uploaded[], added: boolean) => void;
  /** What the form submits it as; a comparison names each model's own. */
  name?: string;
  /** Keeps ids apart where several models' fields of one name are on the page (a comparison). */
  idScope?: string;
}) {
  const [items, setItems] = useState<Item[]>([]);
  const [dragging, setDragging] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const inputRef = useRef<HTMLInputElement>(null);
  const zoneRef = useRef<HTMLDivElement>(null);
  const baseId = useId();
  const id = `field-${idScope ? `${idScope}-` : ""}${field.name}`;
  const maxItems = field.type === "image" ? 1 : field.maxItems;
  const video = isVideoLimits(field.limits);
  const accept = field.limits.formats.map((f) => FORMAT_CONTENT_TYPE[f]).join(",");
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;

  const update = (key: string, change: Partial<Item>) => setItems((all) => all.map((item) => (item.key === key ? { ...item, ...change } : item)));

  // Uploaded files survive a reload until they are used: kept in this tab's session, shown from the server.
  const storageKey = uploadSessionKey(modelId, field.name);
  const restored = useRef(false);
  useEffect(() => {
    const restore = () => {
      const kept = readSavedUploads(storageKey).map((item) => ({ ...item, key: `${baseId}-${item.upload.id}`, previewUrl: `/api/uploads/${item.upload.id}`, status: "done" as const, progress: 1 }));
      if (kept.length) setItems(kept);
      restored.current = true;
    };
    // After the first paint, as the server rendered the field empty (it has no session storage).
    const frame = requestAnimationFrame(restore);
    // "Use last frame as first frame" puts an upload here while the field is showing.
    const unwatch = watchSavedUploads(storageKey, restore);
    return () => {
      cancelAnimationFrame(frame);
      unwatch();
    };
  }, [storageKey, baseId]);
  useEffect(() => {
    if (restored.current) saveUploads(storageKey, items.filter((item) => item.status === "done").map(({ name, video, upload, used }) => ({ name, video, upload: upload!, used })));
  }, [items, storageKey]);

  // A frame taken in the browser (a server without FFmpeg) is uploaded here as if it had been picked.
  const takeOffered = useEffectEvent(() => {
    const files = takeOfferedFiles(storageKey);
    if (files.length) void add(files);
  });
  useEffect(() => {
    // After the restore above (same frame, queued after it), so a restored upload does not replace the new one.
    const frame = requestAnimationFrame(() => takeOffered());
    const unwatch = watchOfferedFiles(storageKey, () => takeOffered());
    return () => {
      cancelAnimationFrame(frame);
      unwatch();
    };
  }, [storageKey]);

  // The form hears of each change of what the field submits (to clear its error, to compare frames).
  const done = items.filter((item) => item.status === "done").map((item) => item.upload!);
  const doneKey = done.map((upload) => upload.id).join("\n");
  const reported = useRef("");
  const report = useEffectEvent((uploads: Uploaded[]) => onChange?.(uploads, items.some((item) => item.status === "done" && !item.used)));
  useEffect(() => {
    if (doneKey === reported.current) return;
    reported.current = doneKey;
    report(done);
    // `done` is read for the ids `doneKey` names.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [doneKey]);

  // The form's reset (after a successful submission) empties the field too.
  useEffect(() => {
    const form = zoneRef.current?.closest("form");
    const clear = () => setItems([]);
    form?.addEventListener("reset", clear);
    return () => form?.removeEventListener("reset", clear);
  }, []);

  async function add(files: File[]) {
    const room = maxItems - items.filter((i) => i.status !== "error").length;
    const taken = files.slice(0, Math.max(0, maxItems === 1 ? 1 : room));
    if (maxItems === 1) setItems((all) => (all.forEach((i) => i.abort?.()), []));
    for (const file of taken) void addOne(file);
    if (files.length > taken.length) setAnnouncement(`${modelLabel} takes at most ${maxItems} ${video ? "videos" : "images"}.`);
  }

  async function addOne(file: File) {
    const key = `${baseId}-${Math.random().toString(36).slice(2)}`;
    const isVideo = file.type.startsWith("video/");
    const item: Item = { key, name: file.name, previewUrl: URL.createObjectURL(file), video: isVideo, status: "checking", progress: 0 };
    setItems((all) => [...all, item]);
    // A quick check here with the same words as the server's; the server decides from the bytes.
    const format = FORMAT_OF[file.type];
    const facts = format ? await readFacts(item.previewUrl, isVideo) : null;
    // A length the browser cannot read (a codec it does not play) is left to the server.
    const readable = facts !== null && !(isVideo && facts.durationSeconds === null);
    const problems = format
      ? readable
        ? mediaProblems({ facts: { format, size: file.size, ...facts! }, limits: field.limits, modelLabel })
        : []
      : file.size > field.limits.maxBytes
        ? [`This file is ${formatBytes(file.size)}; ${modelLabel} takes up to ${formatBytes(field.limits.maxBytes)}.`]
        : [];
    if (problems.length) {
      update(key, { status: "error", error: problems.join(" ") });
      setAnnouncement(`${file.name}: ${problems.join(" ")}`);
      return;
    }
    // The server says how the bytes go: streamed to the app, or posted straight to the bucket (S3).
    const controller = new AbortController();
    const cancel = () => {
      controller.abort();
      setItems((all) => all.filter((i) => i.key !== key));
      setAnnouncement(`Upload of ${file.name} cancelled.`);
    };
    const fail = (message: string) => {
      update(key, { status: "error", error: message, abort: undefined });
      setAnnouncement(`${file.name}: ${message}`);
    };
    update(key, { status: "uploading", abort: cancel });
    setAnnouncement(`Uploading ${file.name}…`);
    let start: UploadStart;
    try {
      const answer = await fetch("/api/uploads/presign", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ model: modelId, field: field.name, size: file.size }),
        signal: controller.signal,
      });
      const body = (await answer.json().catch(() => ({}))) as UploadStart & ErrorBody;
      if (!answer.ok) return fail(body.error?.message ?? `The upload could not start (${answer.status}).`);
      start = body;
    } catch {
      if (!controller.signal.aborted) fail("The upload failed: check your connection and try again.");
      return;
    }
    const xhr = new XMLHttpRequest();
    controller.signal.addEventListener("abort", () => xhr.abort());
    xhr.upload.onprogress = (event) => event.lengthComputable && update(key, { progress: event.loaded / event.total });
    const settle = (status: number, text: string) => {
      let body: ErrorBody & Partial<Uploaded> = {};
      try {
        body = JSON.parse(text);
      } catch {}
      if ((status === 201 || status === 200) && body.id) {
        update(key, { status: "done", progress: 1, upload: body as Uploaded, abort: undefined });
        setAnnouncement(`${file.name} uploaded: ${describeUpload(body as Uploaded)}.`);
      } else fail(body.error?.message ?? `The upload failed (${status}).`);
    };
    xhr.onerror = () => fail("The upload failed: check your connection and try again.");
    if (start.method === "stream") {
      xhr.onload = () => settle(xhr.status, xhr.responseText);
      xhr.open("POST", start.url);
      xhr.send(file);
      return;
    }
    // To the bucket under its signed policy, then the app reads it back and checks it.
    xhr.onload = async () => {
      if (xhr.status < 200 || xhr.status > 299) {
        return fail(
          /EntityTooLarge/.test(xhr.responseText)
            ? `This file is ${formatBytes(file.size)}; ${modelLabel} takes up to ${formatBytes(start.maxBytes)}.`
            : `The storage refused the file (${xhr.status}).`,
        );
      }
      update(key, { progress: 1 });
      setAnnouncement(`Checking ${file.name}…`);
      try {
        const answer = await fetch(start.finalize.url, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ token: start.finalize.token }),
          signal: controller.signal,
        });
        settle(answer.status, await answer.text());
      } catch {
        if (!controller.signal.aborted) fail("The upload failed: check your connection and try again.");
      }
    };
    const form = new FormData();
    for (const [name, value] of Object.entries(start.fields)) form.append(name, value);
    form.append("file", file);
    xhr.open("POST", start.url);
    xhr.send(form);
  }

  /** A file taken from the viewer's gallery: already uploaded and checked by the server. */
  function addPicked({ name, video, upload }: SavedUpload) {
    const item: Item = { key: `${baseId}-${upload.id}`, name, previewUrl: `/api/uploads/${upload.id}`, video, status: "done", progress: 1, upload };
    setItems((all) => (maxItems === 1 ? (all.forEach((i) => i.abort?.()), [item]) : [...all, item]));
    setAnnouncement(`${name} added: ${describeUpload(upload)}.`);
  }

  function remove(item: Item) {
    if (item.abort) return item.abort();
    if (item.previewUrl.startsWith("blob:")) URL.revokeObjectURL(item.previewUrl);
    setItems((all) => all.filter((i) => i.key !== item.key));
    // An upload no generation used goes at once rather than after the unused-upload delay.
    if (item.upload && !item.used) void fetch(`/api/uploads/${item.upload.id}`, { method: "DELETE" }).catch(() => undefined);
    setAnnouncement(`${item.name} removed.`);
    inputRef.current?.focus();
  }

  const ids = done.map((upload) => upload.id);
  const full = items.filter((i) => i.status !== "error").length >= maxItems && maxItems > 1;
  const noteId = `${id}-note`;
  const describedBy = [helpId, note ? noteId : "", errors?.length ? errorId : ""].filter(Boolean).join(" ");
  return (
    <div>
      <p className="text-sm font-medium">
        <span id={`${id}-label`}>
          {field.label}
          {!field.required && <span className="font-normal text-zinc-500 dark:text-zinc-400"> · optional</span>}
        </span>
        {/* Said before a refusal does: nothing else shows that this model needs a file. Screen readers hear aria-required on the picker. */}
        {field.required && <span aria-hidden className="font-normal text-zinc-500 dark:text-zinc-400"> · required</span>}
      </p>
      <input type="hidden" name={name} value={ids.join("\n")} />
      <div
        ref={zoneRef}
        role="group"
        aria-labelledby={`${id}-label`}
        aria-describedby={describedBy}
        onDragOver={(event) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          void add(Array.from(event.dataTransfer.files));
        }}
        onPaste={(event) => {
          const files = Array.from(event.clipboardData.files);
          if (files.length) {
            event.preventDefault();
            void add(files);
          }
        }}
        className={`mt-1 rounded-lg border-2 border-dashed p-3 text-sm ${dragging ? "border-brand-600 bg-brand-50 dark:bg-zinc-800" : "border-zinc-300 dark:border-zinc-700"} ${errors?.length ? "border-red-500" : ""}`}
      >
        {!full && (
          <div className="flex flex-wrap items-center gap-2">
            <label
              htmlFor={id}
              className="cursor-pointer rounded-md bg-zinc-100 px-3 py-1.5 font-medium ring-1 ring-zinc-300 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-brand-600 hover:bg-zinc-200 dark:bg-zinc-800 dark:ring-zinc-700"
            >
              {items.length && maxItems === 1 ? "Replace" : "Choose"} {video ? "video" : "image"}
              <input
                ref={inputRef}
                id={id}
                type="file"
                accept={accept}
                multiple={maxItems > 1}
                aria-invalid={errors?.length ? true : undefined}
                aria-required={field.required && ids.length === 0 ? true : undefined}
                aria-describedby={describedBy}
                className="sr-only"
                onChange={(event) => {
                  void add(Array.from(event.target.files ?? []));
                  event.target.value = "";
                }}
              />
            </label>
            <GalleryPicker modelId={modelId} fieldName={field.name} fieldLabel={field.label} video={video} onPicked={addPicked} onFrame={(file: File) => void add([file])} />
            <span className="text-zinc-600 dark:text-zinc-400">or drop {maxItems > 1 ? "files" : "a file"} here, or paste</span>
          </div>
        )}
        {items.length > 0 && (
          <ul className="mt-2 space-y-2" aria-label={`${field.label}: files`}>
            {items.map((item) => (
              <li key={item.key} className="flex flex-wrap items-center gap-x-3 gap-y-1" data-testid="upload-item" data-status={item.status}>
                {item.video ? (
                  <video src={item.previewUrl} muted playsInline preload="metadata" className="h-12 w-16 shrink-0 rounded bg-black object-cover" aria-hidden="true" />
                ) : (
                  // eslint-disable-next-line @next/next/no-img-element -- a local object URL, not an optimisable asset
                  <img src={item.previewUrl} alt="" className="h-12 w-16 shrink-0 rounded bg-zinc-100 object-cover" />
                )}
                <p className="min-w-0 flex-1 truncate font-medium">{item.name}</p>
                <button
                  type="button"
                  onClick={() => remove(item)}
                  className="rounded-md px-2 py-1 text-sm font-medium text-zinc-700 ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-zinc-200 dark:ring-zinc-700"
                >
                  {item.status === "uploading" || item.status === "checking" ? "Cancel" : "Remove"}
                  <span className="sr-only"> {item.name}</span>
                </button>
                <div className="basis-full">
                  {item.status === "uploading" && (
                    <progress className="h-1.5 w-full" max={1} value={item.progress} aria-label={`Uploading ${item.name}`}>
                      {Math.round(item.progress * 100)}%
                    </progress>
                  )}
                  {item.status === "checking" && <p className="text-zinc-600 dark:text-zinc-400">Reading…</p>}
                  {item.status === "done" && <p className="text-zinc-600 dark:text-zinc-400" data-testid="upload-facts">{describeUpload(item.upload!)}</p>}
                  {item.status === "error" && <p className="text-red-700 dark:text-red-400" data-testid="upload-error">{item.error}</p>}
                </div>
              </li>
            ))}
          </ul>
        )}
      </div>
      <p id={helpId} className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">
        {describeLimits(field.limits)}
        {maxItems > 1 ? ` · up to ${maxItems}` : ""}
      </p>
      {/* In the page before the note appears, so that a screen reader hears it. */}
      <p id={noteId} aria-live="polite" className={note ? "mt-1 text-sm text-amber-800 dark:text-amber-300" : "sr-only"} data-testid="media-note">
        {note}
      </p>
      {errors?.length ? (
        <p id={errorId} className="mt-1 text-sm text-red-700 dark:text-red-400">
          {errors.join(" ")}
        </p>
      ) : null}
      <p className="sr-only" role="status" aria-live="polite">
        {announcement}
      </p>
    </div>
  );
}

function describeUpload(upload: Uploaded): string {
  const parts = [`${upload.width} × ${upload.height} px`];
  if (upload.durationSeconds !== null) parts.push(formatSeconds(upload.durationSeconds));
  if (upload.fps) parts.push(`${Math.round(upload.fps)} fps`);
  parts.push(formatBytes(upload.size));
  return parts.join(" · ");
}

/** What the browser can read of a picked file before it is sent: its size in pixels and a video's length. */
function readFacts(url: string, video: boolean): Promise<{ width: number; height: number; durationSeconds: number | null; fps: null } | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), 5000);
    const done = (facts: { width: number; height: number; durationSeconds: number | null } | null) => {
      clearTimeout(timer);
      resolve(facts && facts.width > 0 ? { ...facts, fps: null } : null);
    };
    if (video) {
      const element = document.createElement("video");
      element.preload = "metadata";
      element.onloadedmetadata = () => done({ width: element.videoWidth, height: element.videoHeight, durationSeconds: Number.isFinite(element.duration) ? element.duration : null });
      element.onerror = () => done(null);
      element.src = url;
    } else {
      const image = new Image();
      image.onload = () => done({ width: image.naturalWidth, height: image.naturalHeight, durationSeconds: null });
      image.onerror = () => done(null);
      image.src = url;
    }
  });
}
