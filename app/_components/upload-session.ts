"use client";
// Uploaded files a media field holds, kept in the tab's session until they
// are used: the field writes and restores them; "Use last frame as first
// frame" puts one there for the field to pick up. A frame taken in the browser
// (a server without FFmpeg) is a file not yet uploaded: it is offered to the
// field, which uploads it as if the person had picked it.

export type SavedUpload = {
  name: string;
  video: boolean;
  upload: { id: string; width: number; height: number; durationSeconds: number | null; fps: number | null; size: number };
  /** A generation uses it already (a remix put it back): it is not deleted when removed from the form. */
  used?: boolean;
};

const EVENT = "framehook:uploads";
export const uploadSessionKey = (model: string, field: string) => `framehook:uploads:${model}:${field}`;

export function readSavedUploads(key: string): SavedUpload[] {
  try {
    const saved = JSON.parse(sessionStorage.getItem(key) ?? "[]") as SavedUpload[];
    return Array.isArray(saved) ? saved.filter((item) => typeof item?.upload?.id === "string") : [];
  } catch {
    return [];
  }
}

export function saveUploads(key: string, uploads: SavedUpload[], { announce = false } = {}) {
  try {
    if (uploads.length) sessionStorage.setItem(key, JSON.stringify(uploads));
    else sessionStorage.removeItem(key);
  } catch {
    // Private mode or a full quota: uploads then last as long as the page.
  }
  if (announce) window.dispatchEvent(new CustomEvent(EVENT, { detail: key }));
}

/** Calls `onChange` when another component put uploads under `key`. */
export function watchSavedUploads(key: string, onChange: () => void): () => void {
  const listener = (event: Event) => (event as CustomEvent<string>).detail === key && onChange();
  window.addEventListener(EVENT, listener);
  return () => window.removeEventListener(EVENT, listener);
}

const OFFER_EVENT = "framehook:offered-files";
const offered = new Map<string, File[]>();

/** Hands `files` to the media field of `key` (now, or when it mounts), which uploads them. */
export function offerFiles(key: string, files: File[]) {
  offered.set(key, [...(offered.get(key) ?? []), ...files]);
  window.dispatchEvent(new CustomEvent(OFFER_EVENT, { detail: key }));
}

/** The files offered to `key` and not yet taken; taking them clears them. */
export function takeOfferedFiles(key: string): File[] {
  const files = offered.get(key) ?? [];
  offered.delete(key);
  return files;
}

/** Calls `onOffer` when files are offered to `key`. */
export function watchOfferedFiles(key: string, onOffer: () => void): () => void {
  const listener = (event: Event) => (event as CustomEvent<string>).detail === key && onOffer();
  window.addEventListener(OFFER_EVENT, listener);
  return () => window.removeEventListener(OFFER_EVENT, listener);
}
