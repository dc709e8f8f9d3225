"use client";
// Fills the form from a gallery card's "Remix": its model first (the fields
// follow the model), then, once they are rendered, each field's value; the
// media inputs come back as the uploads they were while those are kept.
import { useEffect, useState } from "react";
import { findKeptUploadsAction } from "@/app/actions";
import { mediaFieldsOf, mediaValuesOf, type MediaFieldSpec, type ModelSpec } from "@/lib/models/catalog";
import { isUploadId } from "@/lib/models/input-schema";
import { fieldValue, finishRemix, useRemixRequest } from "./remix";
import { saveUploads, uploadSessionKey } from "./upload-session";

/** Per media field of the remixed model, what must be added again (its file is no longer kept, or is not the viewer's). */
export type RemixNotes = { model: string; notes: Record<string, string> };

export function useRemix({
  models,
  modelId,
  setModelId,
  setDuration,
  setNotes,
  formRef,
  focusId,
}: {
  models: readonly ModelSpec[];
  modelId: string;
  setModelId: (id: string) => void;
  setDuration: (value: number | undefined) => void;
  setNotes: (notes: RemixNotes) => void;
  formRef: React.RefObject<HTMLFormElement | null>;
  /** The field that takes focus once the form is filled. */
  focusId: string;
}) {
  const remix = useRemixRequest();
  const [filled, setFilled] = useState<number | null>(null);
  useEffect(() => {
    if (!remix || remix.at === filled) return;
    if (models.some((m) => m.id === remix.model)) setModelId(remix.model);
  }, [remix, filled, models, setModelId]);
  useEffect(() => {
    const form = formRef.current;
    if (!remix || remix.at === filled || !form) return;
    // The model's fields render after setModelId: fill them once they are the right ones.
    if (remix.model !== modelId && models.some((m) => m.id === remix.model)) return;
    const frame = requestAnimationFrame(() => {
      const values: Record<string, unknown> = { ...remix.input, prompt: remix.prompt };
      for (const element of Array.from(form.elements)) {
        if (!(element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement)) continue;
        // A media field's hidden input follows its files, restored below.
        if (!element.name.startsWith("input.") || element.type === "hidden") continue;
        const value = values[element.name.slice("input.".length)];
        if (value !== undefined) element.value = fieldValue(value);
      }
      const duration = Number(values.duration);
      setDuration(Number.isFinite(duration) && values.duration !== undefined ? duration : undefined);
      setFilled(remix.at);
      finishRemix(remix.at);
      const model = models.find((m) => m.id === remix.model);
      if (model) void restoreMedia(model, remix.input).then((notes) => setNotes({ model: model.id, notes }));
      const prompt = document.getElementById(focusId);
      prompt?.focus();
      prompt?.scrollIntoView({ block: "center", behavior: "smooth" });
    });
    return () => cancelAnimationFrame(frame);
  }, [remix, filled, formRef, setDuration, setNotes, modelId, models, focusId]);
  return remix;
}

/**
 * Puts the generation's uploads back in their fields (through the tab's
 * session, where a field restores its files from) while the server keeps
 * them; answers what must be added again.
 */
async function restoreMedia(model: ModelSpec, input: Record<string, unknown>): Promise<Record<string, string>> {
  const wanted = mediaFieldsOf(model)
    .map((field) => ({ field, values: mediaValuesOf(field, input) }))
    .filter(({ values }) => values.length > 0);
  const ids = wanted.flatMap(({ values }) => values.filter(isUploadId));
  const kept = new Map((ids.length ? await findKeptUploadsAction(ids).catch(() => []) : []).map((upload) => [upload.id, upload]));
  const notes: Record<string, string> = {};
  for (const { field, values } of wanted) {
    const video = field.type === "video-list";
    const restored = values.flatMap((value, i) => {
      const upload = kept.get(value);
      if (!upload) return [];
      const { id, width, height, durationSeconds, fps, size, format } = upload;
      const name = `${field.label}${values.length > 1 ? ` ${i + 1}` : ""} (remixed).${format}`;
      return [{ name, video, used: true, upload: { id, width, height, durationSeconds, fps, size } }];
    });
    if (restored.length) saveUploads(uploadSessionKey(model.id, field.name), restored, { announce: true });
    const missing = values.length - restored.length;
    if (missing) notes[field.name] = missingNote(field, missing, values.length);
  }
  return notes;
}

function missingNote(field: MediaFieldSpec, missing: number, of: number): string {
  const plural = field.label.toLowerCase();
  const what = of === 1 ? plural.replace(/s$/, "") : plural;
  if (missing < of) return `${missing} of the remixed video's ${of} ${plural} ${missing === 1 ? "is" : "are"} no longer available: add ${missing === 1 ? "it" : "them"} again.`;
  return `Add the ${what} again: the remixed video's ${what} ${of === 1 ? "is" : "are"} no longer available.`;
}
