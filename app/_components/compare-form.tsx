"use client";
// The compare form: two to four models, the prompt and the options they all
// have asked once, each model's own options under its name (media inputs only
// where the model takes them, "not applicable" beside the others), and what
// each holds with the total. One submit makes one batch, held as one; the
// answer opens the comparison view.
import Link from "next/link";
import { useActionState, useRef, useState, startTransition } from "react";
import { submitBatchAction, type CompareState } from "@/app/actions";
import { holdCredits, type CreditPricing } from "@/lib/credits/prices";
import { BATCH_MAX_MODELS, BATCH_MIN_MODELS } from "@/lib/batches/batch-request";
import { ownFieldName, ownFieldsOf, sharedFieldName, sharedFieldsOf } from "@/lib/batches/compare-form";
import { isMediaField, type ModelSpec } from "@/lib/models/catalog";
import { FIELD_CONTROL, FieldErrors, ModelField } from "./generation-form";
import { MediaField } from "./media-field";

const initialState: CompareState = { status: "idle" };
const newKey = () => (typeof crypto !== "undefined" && "randomUUID" in crypto ? crypto.randomUUID() : String(Date.now()));
const credits = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "credit" : "credits"}`;
export function CompareForm({ models, pricing }: { models: readonly ModelSpec[]; pricing: CreditPricing | null }) {
  const [state, formAction, isPending] = useActionState(submitBatchAction, initialState);
  const [picked, setPicked] = useState<string[]>([]);
  // The durations typed so far, by form field name: what the estimate reads.
  const [values, setValues] = useState<Record<string, string>>({});
  // One key per attempt: a double click sends it twice, the server makes one batch.
  const submission = useRef<{ key: string; answered: CompareState } | null>(null);
  const chosen = picked.map((id) => models.find((m) => m.id === id)!).filter(Boolean);
  const shared = sharedFieldsOf(chosen);
  const errors = state.fieldErrors ?? {};
  const durationOf = (model: ModelSpec) => {
    const raw = values[sharedFieldName("duration")] ?? values[ownFieldName(model.id, "duration")];
    return raw ? Number(raw) : undefined;
  };
  const holds = pricing ? chosen.map((m) => ({ model: m, credits: holdCredits(m, durationOf(m), pricing) })) : [];
  const total = holds.reduce((sum, h) => sum + h.credits, 0);
  // A shared option's refusals come back per model: shown once, beside it.
  const sharedErrors = (field: string) => {
    const all = chosen.flatMap((m) => errors[ownFieldName(m.id, field)] ?? []);
    return all.length ? [...new Set(all)] : undefined;
  };
  const mediaKinds = new Set(chosen.flatMap((m) => m.fields.filter(isMediaField).map((f) => f.label)));

  return (
    <form
      action={formAction}
      aria-label="Compare models"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (submission.current?.answered !== state) submission.current = { key: newKey(), answered: state };
        const data = new FormData(event.currentTarget);
        data.set("idempotencyKey", submission.current.key);
        startTransition(() => formAction(data));
      }}
      onChange={(event) => {
        const target = event.target as Partial<HTMLInputElement>;
        if (target.name?.endsWith("duration")) setValues((v) => ({ ...v, [target.name!]: target.value ?? "" }));
      }}
      className="space-y-4 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 dark:bg-zinc-900 dark:ring-zinc-800"
    >
      <fieldset aria-describedby={errors.models ? "compare-models-error" : undefined}>
        <legend className="text-sm font-medium">
          Models to compare <span className="font-normal text-zinc-500 dark:text-zinc-400">· pick {BATCH_MIN_MODELS} to {BATCH_MAX_MODELS}</span>
        </legend>
        <div className="mt-2 grid gap-1">
          {models.map((m) => {
            const on = picked.includes(m.id);
            return (
              <label key={m.id} className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  name="models"
                  value={m.id}
                  checked={on}
                  disabled={!on && picked.length >= BATCH_MAX_MODELS}
                  onChange={(e) => setPicked((all) => (e.target.checked ? [...all, m.id] : all.filter((id) => id !== m.id)))}
                  className="size-4 accent-brand-600"
                />
                {m.label}
              </label>
            );
          })}
        </div>
        <FieldErrors id="compare-models-error" messages={errors.models} />
      </fieldset>

      <div>
        <label htmlFor="compare-prompt" className="block text-sm font-medium">
          Prompt
        </label>
        <textarea
          id="compare-prompt"
          name="prompt"
          rows={3}
          maxLength={2000}
          aria-invalid={errors.prompt ? true : undefined}
          aria-describedby={errors.prompt ? "compare-prompt-error" : undefined}
          placeholder="A paper boat drifting down a rain-soaked street at dusk"
          className={FIELD_CONTROL}
        />
        <FieldErrors id="compare-prompt-error" messages={errors.prompt} />
      </div>

      {shared.length ? (
        <fieldset className="space-y-3">
          <legend className="text-sm font-semibold">Options for every model</legend>
          {shared.map((field) => (
            <ModelField key={`shared:${field.name}`} field={field} id={`compare-shared-${field.name}`} name={sharedFieldName(field.name)} errors={sharedErrors(field.name)} />
          ))}
        </fieldset>
      ) : null}

      {chosen.map((model) => {
        const own = ownFieldsOf(model, shared);
        const media = own.filter(isMediaField);
        const notTaken = [...mediaKinds].filter((label) => !media.some((f) => f.label === label));
        const scope = model.id.replace(/[^a-z0-9]+/gi, "-");
        return (
          <fieldset key={model.id} className="space-y-3 rounded-xl p-3 ring-1 ring-zinc-200 dark:ring-zinc-800" aria-label={`${model.label} options`}>
            <legend className="px-1 text-sm font-semibold">{model.label}</legend>
            {own.map((field) =>
              isMediaField(field) ? (
                <MediaField
                  key={field.name}
                  field={field}
                  modelId={model.id}
                  modelLabel={model.label}
                  name={ownFieldName(model.id, field.name)}
                  idScope={scope}
                  errors={errors[ownFieldName(model.id, field.name)]}
                />
              ) : (
                <ModelField key={field.name} field={field} id={`compare-${scope}-${field.name}`} name={ownFieldName(model.id, field.name)} errors={errors[ownFieldName(model.id, field.name)]} />
              ),
            )}
            {own.length === 0 ? <p className="text-xs text-zinc-600 dark:text-zinc-400">No options of its own.</p> : null}
            {notTaken.length ? (
              <p className="text-xs text-zinc-600 dark:text-zinc-400" data-testid="not-applicable">
                {notTaken.join(", ")}: not applicable to this model.
              </p>
            ) : null}
          </fieldset>
        );
      })}

      <div className="flex flex-wrap items-end justify-between gap-3 pt-2">
        {pricing && holds.length ? (
          <div className="text-sm text-zinc-600 dark:text-zinc-300" data-testid="compare-estimate">
            <ul>
              {holds.map((h) => (
                <li key={h.model.id}>
                  {h.model.label}: {credits(h.credits)}
                </li>
              ))}
            </ul>
            <p className="mt-1">
              Holds <span className="font-semibold">{credits(total)}</span> in all
              <span className="text-zinc-500 dark:text-zinc-400"> · each charged only on success, never more</span>
            </p>
          </div>
        ) : null}
        <button
          type="submit"
          disabled={isPending}
          className="ml-auto rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
        >
          {isPending ? "Submitting…" : `Compare ${chosen.length || ""} models`.replace("  ", " ")}
        </button>
      </div>
      <p role="status" aria-live="polite" className="text-sm font-medium text-red-700 dark:text-red-400">
        {isPending ? "" : state.message}
        {!isPending && state.code === "insufficient_credits" ? (
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

