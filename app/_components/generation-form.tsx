"use client";
// The prompt form: model picker, the chosen model's fields (media fields
// upload their files: media-field.tsx), the cost estimate, and the answer
// (field errors beside fields, refusals as a message).
import { useActionState, useEffect, useRef, useState, startTransition } from "react";
import { submitGenerationAction, type SubmitState } from "@/app/actions";
import { formatCostEstimate, KIND_LABELS, priceLabel, type FieldSpec, type MediaFieldSpec, type ModelSpec } from "@/lib/models/catalog";
import { mutate } from "swr";
import { MediaField } from "./media-field";
import { fieldValue, finishRemix, useRemixRequest } from "./remix";
import { addSubmission, settleSubmission } from "./submissions";
import { SPEND_KEY } from "./client-data";

const initialState: SubmitState = { status: "idle" };
const PROMPT_FIELD_ID = "field-prompt";
const newKey = () => (typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : String(Date.now()));

export function GenerationForm({ models, defaultModelId }: { models: readonly ModelSpec[]; defaultModelId: string }) {
  const [state, formAction, isPending] = useActionState(submitGenerationAction, initialState);
  const [modelId, setModelId] = useState(defaultModelId);
  const [duration, setDuration] = useState<number | undefined>(undefined);
  // One key per submission attempt: a double click before the answer arrives
  // reuses it, so the server creates one generation.
  // `prompt`: what was sent, so that the answer clears the form only if the user has not typed a new one meanwhile.
  const submission = useRef<{ key: string; answered: SubmitState; prompt?: string } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const modelRef = useRef<HTMLSelectElement>(null);
  const model = models.find((m) => m.id === modelId) ?? models[0]!;
  const remix = useRemix({ models, modelId, setModelId, setDuration, formRef });

  useEffect(() => {
    // A form's reset puts each select back on its default option. The chosen
    // model is made the default, so that the reset after a submission keeps
    // the select on the model whose fields are below and which is submitted.
    const select = modelRef.current;
    if (!select) return;
    for (const option of Array.from(select.options)) option.defaultSelected = option.value === modelId;
    select.value = modelId;
  }, [modelId]);

  useEffect(() => {
    // The answer replaces the placeholder card with the generation the server created.
    if (state === initialState || !submission.current) return;
    settleSubmission(submission.current.key, state.generation);
    const form = formRef.current;
    if (state.status === "success" && form && new FormData(form).get("input.prompt") === submission.current.prompt) form.reset();
    void mutate(SPEND_KEY); // the header's spend includes what was just submitted
  }, [state]);

  const errors = state.fieldErrors ?? {};
  return (
    <form
      ref={formRef}
      action={formAction}
      aria-label="New video"
      data-remix={remix?.at}
      onSubmit={(event) => {
        // Submitting in a transition keeps what the user typed when the answer is an error.
        event.preventDefault();
        if (submission.current?.answered !== state) submission.current = { key: newKey(), answered: state };
        const data = new FormData(event.currentTarget);
        data.set("idempotencyKey", submission.current.key);
        const prompt = data.get("input.prompt");
        submission.current.prompt = typeof prompt === "string" ? prompt : undefined;
        if (typeof prompt === "string" && prompt.trim()) addSubmission(submission.current.key, { model: modelId, prompt: prompt.trim() });
        startTransition(() => formAction(data));
      }}
      onReset={() => setDuration(undefined)}
      className="space-y-4 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 dark:bg-zinc-900 dark:ring-zinc-800"
      noValidate
    >
      <div>
        <label htmlFor="model" className="block text-sm font-medium">
          Model
        </label>
        <select
          ref={modelRef}
          id="model"
          name="model"
          value={modelId}
          onChange={(e) => setModelId(e.target.value)}
          className="mt-1 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 dark:border-zinc-700 dark:bg-zinc-950"
          aria-describedby="model-help"
        >
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label} — {KIND_LABELS[m.kind]} · {priceLabel(m)}
            </option>
          ))}
        </select>
        <p id="model-help" className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          {KIND_LABELS[model.kind]} · {priceLabel(model)} · <code>{model.id}</code>
        </p>
        <FieldErrors id="model-error" messages={errors.model} />
      </div>

      {model.fields.map((field) =>
        field.type === "image" || field.type === "video-list" ? (
          <MediaField key={`${model.id}:${field.name}`} field={field} modelId={model.id} modelLabel={model.label} errors={errors[field.name]} />
        ) : (
          <Field
            key={field.name === "prompt" ? "prompt" : `${model.id}:${field.name}`}
            field={field}
            errors={errors[field.name]}
            onDurationChange={field.name === "duration" ? setDuration : undefined}
          />
        ),
      )}

      <div className="flex flex-wrap items-center justify-between gap-3 pt-2">
        <p className="text-sm text-zinc-600 dark:text-zinc-300">
          Estimated cost <span className="font-semibold" data-testid="cost-estimate">{formatCostEstimate(model, duration)}</span>
          <span className="text-zinc-500 dark:text-zinc-400"> · charged only on success</span>
        </p>
        <button
          type="submit"
          disabled={isPending}
          className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
        >
          {isPending ? "Submitting…" : "Generate video"}
        </button>
      </div>
      <p
        role="status"
        aria-live="polite"
        className={state.status === "error" ? "text-sm font-medium text-red-700 dark:text-red-400" : "text-sm text-emerald-700 dark:text-emerald-400"}
      >
        {state.message}
      </p>
    </form>
  );
}

function Field({
  field,
  errors,
  onDurationChange,
}: {
  field: Exclude<FieldSpec, MediaFieldSpec>;
  errors?: string[];
  onDurationChange?: (value: number | undefined) => void;
}) {
  const id = field.name === "prompt" ? PROMPT_FIELD_ID : `field-${field.name}`;
  const name = `input.${field.name}`;
  const errorId = `${id}-error`;
  const common = {
    id,
    name,
    "aria-invalid": errors ? true : undefined,
    "aria-describedby": errors ? errorId : undefined,
    required: field.required,
    className:
      "mt-1 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm placeholder:text-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 aria-invalid:border-red-500 dark:placeholder:text-zinc-400 dark:border-zinc-700 dark:bg-zinc-950",
  };
  let control: React.ReactNode;
  switch (field.type) {
    case "text":
      control = field.multiline ? (
        <textarea {...common} rows={3} maxLength={field.maxLength} placeholder={field.placeholder} />
      ) : (
        <input {...common} type="text" maxLength={field.maxLength} placeholder={field.placeholder} />
      );
      break;
    case "integer":
      control = (
        <input
          {...common}
          type="number"
          inputMode="numeric"
          min={field.min}
          max={field.max}
          step={1}
          defaultValue={field.default}
          onChange={onDurationChange && ((e) => onDurationChange(e.target.value ? Number(e.target.value) : undefined))}
        />
      );
      break;
    case "select":
      control = (
        <select {...common} defaultValue={field.default}>
          {field.options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      );
      break;
    case "url":
      control = <input {...common} type="url" inputMode="url" placeholder={field.placeholder} />;
      break;
    case "url-list":
      control = <textarea {...common} rows={2} placeholder={field.placeholder} />;
      break;
  }
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium">
        {field.label}
        {field.type === "integer" && field.unit ? ` (${field.unit})` : ""}
        {!field.required && <span className="font-normal text-zinc-500 dark:text-zinc-400"> · optional</span>}
      </label>
      {control}
      {field.type === "url-list" && <p className="mt-1 text-xs text-zinc-500 dark:text-zinc-400">Up to {field.maxItems}, one per line.</p>}
      <FieldErrors id={errorId} messages={errors} />
    </div>
  );
}

function FieldErrors({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-700 dark:text-red-400">
      {messages.join(" ")}
    </p>
  );
}

/**
 * Fills the form from a gallery card's "Remix": its model first (the fields
 * follow the model), then, once they are rendered, each field's value.
 */
function useRemix({
  models,
  modelId,
  setModelId,
  setDuration,
  formRef,
}: {
  models: readonly ModelSpec[];
  modelId: string;
  setModelId: (id: string) => void;
  setDuration: (value: number | undefined) => void;
  formRef: React.RefObject<HTMLFormElement | null>;
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
        if (!element.name.startsWith("input.")) continue;
        const value = values[element.name.slice("input.".length)];
        if (value !== undefined) element.value = fieldValue(value);
      }
      const duration = Number(values.duration);
      setDuration(Number.isFinite(duration) && values.duration !== undefined ? duration : undefined);
      setFilled(remix.at);
      finishRemix(remix.at);
      const prompt = document.getElementById(PROMPT_FIELD_ID);
      prompt?.focus();
      prompt?.scrollIntoView({ block: "center", behavior: "smooth" });
    });
    return () => cancelAnimationFrame(frame);
  }, [remix, filled, formRef, setDuration, modelId, models]);
  return remix;
}

/** Puts an example prompt in the form (the empty gallery offers a few) and moves focus there. */
export function fillPrompt(text: string) {
  const field = document.getElementById(PROMPT_FIELD_ID);
  if (!(field instanceof HTMLTextAreaElement)) return;
  field.value = text;
  field.focus();
}
