"use client";
// The prompt form: model picker, the chosen model's fields (media fields
// upload their files: media-field.tsx), the credits a submission holds
// (computed with the server's pricing: the figure shown is the figure held;
// no pricing: credits are off and nothing is held or shown),
// and the answer (field errors beside fields until they are edited, refusals
// as a message, with a link to buy credits when they ran out; focus on the
// first field to fix). Beside Generate, "Email me when it's ready" for a
// signed-in person (their last choice ticked), or an offer to sign in for it.
import Link from "next/link";
import { useActionState, useEffect, useRef, useState, startTransition } from "react";
import { submitGenerationAction, type SubmitState } from "@/app/actions";
import { holdCredits, type CreditPricing } from "@/lib/credits/prices";
import { DEFAULT_DURATION_SECONDS, isMediaField, KIND_LABELS, type FieldSpec, type MediaFieldSpec, type ModelSpec } from "@/lib/models/catalog";
import { mutate } from "swr";
import { FrameShapeWarning } from "./frame-shapes";
import { MediaField, type Uploaded } from "./media-field";
import { addSubmission, settleSubmission } from "./submissions";
import { CREDITS_KEY, SPEND_KEY } from "./client-data";
import { useCredits } from "./use-credits";
import { useRemix, type RemixNotes } from "./use-remix";

const initialState: SubmitState = { status: "idle" };
const PROMPT_FIELD_ID = "field-prompt";
const newKey = () => (typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : String(Date.now()));

const credits = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "credit" : "credits"}`;

/** What the form offers about ready emails: the box (and the account's default), sign-in for it, or nothing (email is off). */
export type ReadyEmailOffer = { kind: "choose"; chosen: boolean } | { kind: "sign-in" } | null;

export function GenerationForm({
  models,
  defaultModelId,
  pricing,
  readyEmail = null,
}: {
  models: readonly ModelSpec[];
  defaultModelId: string;
  pricing: CreditPricing | null;
  readyEmail?: ReadyEmailOffer;
}) {
  const [state, formAction, isPending] = useActionState(submitGenerationAction, initialState);
  // The box keeps the person's choice across the form's reset after a submission (it is their default now).
  const [emailMe, setEmailMe] = useState(readyEmail?.kind === "choose" && readyEmail.chosen);
  const [resets, setResets] = useState(0);
  const [modelId, setModelId] = useState(defaultModelId);
  const [duration, setDuration] = useState<number | undefined>(undefined);
  // One key per submission attempt: a double click before the answer arrives
  // reuses it, so the server creates one generation.
  // `prompt`: what was sent, so that the answer clears the form only if the user has not typed a new one meanwhile.
  const submission = useRef<{ key: string; answered: SubmitState; prompt?: string } | null>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const modelRef = useRef<HTMLSelectElement>(null);
  const submitRef = useRef<HTMLButtonElement>(null);
  const model = models.find((m) => m.id === modelId) ?? models[0]!;
  // What each media field submits, by model and field (the frames' shapes are compared).
  const [uploads, setUploads] = useState<Record<string, Uploaded[]>>({});
  const [remixNotes, setRemixNotes] = useState<RemixNotes | null>(null);
  const remix = useRemix({ models, modelId, setModelId, setDuration, setNotes: setRemixNotes, formRef, focusId: PROMPT_FIELD_ID });
  // Fields edited since the answer: their errors leave ("all" after a change of model, whose fields are others).
  const [edited, setEdited] = useState<{ answer: SubmitState; fields: "all" | readonly string[] }>({ answer: initialState, fields: [] });
  const editedFields = edited.answer === state ? edited.fields : [];
  const markEdited = (field: string | "all") =>
    setEdited((e) => {
      const before = e.answer === state ? e.fields : [];
      if (before === "all" || before.includes(field)) return e.answer === state ? e : { answer: state, fields: before };
      return { answer: state, fields: field === "all" ? "all" : [...before, field] };
    });
  // A remix refills the fields: the answer's errors were about what it replaced.
  const [remixed, setRemixed] = useState<number | null>(null);
  if (remix && remix.at !== remixed) {
    setRemixed(remix.at);
    markEdited("all");
  }

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
    // A refusal: focus goes to the first field to fix (its error is read with it), else back to the button.
    if (state.status === "error" && form) (form.querySelector<HTMLElement>('[aria-invalid="true"]') ?? submitRef.current)?.focus();
    // The header's spend and credits include what was just submitted (its hold).
    void mutate(SPEND_KEY);
    void mutate(CREDITS_KEY);
  }, [state]);

  const errors = Object.fromEntries(Object.entries(state.fieldErrors ?? {}).filter(([field]) => editedFields !== "all" && !editedFields.includes(field)));
  // "Check the highlighted fields" leaves with the last highlighted field; nothing is said while a submission is on its way.
  const allFixed = state.fieldErrors !== undefined && Object.keys(state.fieldErrors).length > 0 && Object.keys(errors).length === 0;
  const message = isPending || allFixed ? "" : state.message;
  const notes = remixNotes?.model === model.id ? remixNotes.notes : {};
  const uploadsOf = (field: string) => uploads[`${model.id}:${field}`];
  const frames = model.kind === "first-last-frame" ? model.fields.filter((f) => f.type === "image") : [];
  const hold = pricing ? holdCredits(model, duration, pricing) : 0;
  // Said before the submit, not by its refusal: a balance short of what this video holds.
  const { data: balance } = useCredits({ enabled: pricing !== null });
  const short = pricing && balance && balance.credits < hold ? hold - balance.credits : 0;
  const perClip = (m: ModelSpec) => (pricing ? ` · ${credits(holdCredits(m, DEFAULT_DURATION_SECONDS, pricing))} per ${DEFAULT_DURATION_SECONDS} s` : "");
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
      onInput={(event) => {
        const name = (event.target as Partial<HTMLInputElement>).name;
        if (name?.startsWith("input.")) markEdited(name.slice("input.".length));
      }}
      onReset={() => {
        setDuration(undefined);
        setRemixNotes(null);
        setResets((n) => n + 1);
      }}
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
          onChange={(e) => {
            setModelId(e.target.value);
            markEdited("all");
          }}
          aria-invalid={errors.model ? true : undefined}
          className="mt-1 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 dark:border-zinc-700 dark:bg-zinc-950"
          aria-describedby={errors.model ? "model-help model-error" : "model-help"}
        >
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.label} — {KIND_LABELS[m.kind]}
              {perClip(m)}
            </option>
          ))}
        </select>
        <p id="model-help" className="mt-1 text-xs text-zinc-600 dark:text-zinc-400">
          {KIND_LABELS[model.kind]}
          {perClip(model)}
          {pricing && model.usdPerSecond === null ? " (estimated: this model's rate is not published)" : ""} · <code>{model.id}</code>
        </p>
        <FieldErrors id="model-error" messages={errors.model} />
      </div>

      {model.fields.map((field) =>
        isMediaField(field) ? (
          <div key={`${model.id}:${field.name}`} className="space-y-2">
            <MediaField
              field={field}
              modelId={model.id}
              modelLabel={model.label}
              errors={errors[field.name]}
              note={notes[field.name]}
              onChange={(files, added) => {
                setUploads((all) => ({ ...all, [`${model.id}:${field.name}`]: files }));
                markEdited(field.name);
                if (added && notes[field.name]) setRemixNotes((r) => r && { ...r, notes: Object.fromEntries(Object.entries(r.notes).filter(([name]) => name !== field.name)) });
              }}
            />
            {frames.length === 2 && field === frames[1] ? <FrameShapeWarning first={uploadsOf(frames[0]!.name)?.[0]} last={uploadsOf(field.name)?.[0]} /> : null}
          </div>
        ) : (
          <ModelField
            key={field.name === "prompt" ? "prompt" : `${model.id}:${field.name}`}
            field={field}
            errors={errors[field.name]}
            onDurationChange={field.name === "duration" ? setDuration : undefined}
          />
        ),
      )}

      {readyEmail?.kind === "choose" ? (
        <label className="flex items-center gap-2 text-sm">
          <input type="hidden" name="emailChoice" value="1" />
          <input
            key={resets}
            type="checkbox"
            name="emailWhenReady"
            defaultChecked={emailMe}
            onChange={(event) => setEmailMe(event.target.checked)}
            className="size-4 rounded border-zinc-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
          />
          Email me when it’s ready
        </label>
      ) : readyEmail?.kind === "sign-in" ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-300">
          {/* Not named "Sign in": the header's link is. */}
          An email when it’s ready? It needs an account:{" "}
          <Link href="/sign-in" className="font-medium text-brand-700 underline hover:no-underline dark:text-brand-400">
            go to sign-in
          </Link>
          .
        </p>
      ) : null}

      <div className="flex flex-wrap items-center justify-between gap-3 pt-2">
        {pricing ? (
          <div className="text-sm text-zinc-600 dark:text-zinc-300">
            <p>
              Holds{" "}
              <span className="font-semibold" data-testid="cost-estimate">
                {credits(hold)}
              </span>
              <span className="text-zinc-500 dark:text-zinc-400"> · charged only on success, never more</span>
            </p>
            {short && balance ? (
              <p className="mt-1 font-medium text-amber-800 dark:text-amber-300" data-testid="credits-short">
                You have {credits(balance.credits)}: {credits(short)} short for this video.{" "}
                {balance.welcome === "ceiling" ? "Today's free credits for new visitors have all been given out: buy credits to start now, or come back tomorrow. " : null}
                <Link href="/credits" className="font-semibold underline hover:no-underline">
                  Buy credits
                </Link>
              </p>
            ) : null}
          </div>
        ) : null}
        <button
          ref={submitRef}
          type="submit"
          disabled={isPending}
          className="ml-auto rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
        >
          {isPending ? "Submitting…" : "Generate video"}
        </button>
      </div>
      <p
        role="status"
        aria-live="polite"
        className={state.status === "error" ? "text-sm font-medium text-red-700 dark:text-red-400" : "text-sm text-emerald-700 dark:text-emerald-400"}
      >
        {message}
        {message && state.code === "insufficient_credits" ? (
          <>
            {" "}
            <Link href="/credits" className="font-semibold underline hover:no-underline">
              Buy credits
            </Link>
          </>
        ) : null}
      </p>
    </form>
  );
}

/** The look of a model option's control, in this form and the compare form. */
export const FIELD_CONTROL =
  "mt-1 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm placeholder:text-zinc-500 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 aria-invalid:border-red-500 dark:placeholder:text-zinc-400 dark:border-zinc-700 dark:bg-zinc-950";

/**
 * One of a model's options (anything but a media input), with its label and errors. `id` and `name` default to
 * this form's (`input.<name>`); the compare form names each model's own copy.
 */
export function ModelField({
  field,
  errors,
  onDurationChange,
  id = field.name === "prompt" ? PROMPT_FIELD_ID : `field-${field.name}`,
  name = `input.${field.name}`,
}: {
  field: Exclude<FieldSpec, MediaFieldSpec>;
  errors?: string[];
  onDurationChange?: (value: number | undefined) => void;
  id?: string;
  name?: string;
}) {
  const errorId = `${id}-error`;
  const common = {
    id,
    name,
    "aria-invalid": errors ? true : undefined,
    "aria-describedby": errors ? errorId : undefined,
    required: field.required,
    className: FIELD_CONTROL,
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

/** A field's errors under it, named by aria-describedby (the compare form's fields too). */
export function FieldErrors({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p id={id} className="mt-1 text-sm text-red-700 dark:text-red-400">
      {messages.join(" ")}
    </p>
  );
}

/** Puts an example prompt in the form (the empty gallery offers a few) and moves focus there. */
export function fillPrompt(text: string) {
  const field = document.getElementById(PROMPT_FIELD_ID);
  if (!(field instanceof HTMLTextAreaElement)) return;
  field.value = text;
  field.focus();
}
