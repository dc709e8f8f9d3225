"use client";
// Grant or take an owner's credits, with a reason. One key per form shown, so
// that a double submit adjusts once; a new key after each answer.
import { useActionState, useState } from "react";
import { adjustCreditsAction, type AdjustCreditsState } from "../credit-actions";

const initial: AdjustCreditsState = { status: "idle" };
const input = "w-full rounded-lg border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700";

export function AdjustCreditsForm() {
  const [state, action, pending] = useActionState(adjustCreditsAction, initial);
  const [key, setKey] = useState<{ for: AdjustCreditsState; value: string }>(() => ({ for: initial, value: crypto.randomUUID() }));
  if (key.for !== state) setKey({ for: state, value: crypto.randomUUID() });
  const errors = state.fieldErrors ?? {};
  return (
    <form action={action} aria-label="Adjust credits" className="grid gap-3 sm:grid-cols-[2fr_1fr_3fr_auto] sm:items-end">
      <input type="hidden" name="key" value={key.value} />
      <Field name="ownerId" label="Owner" placeholder="visitor id or user:…" errors={errors.ownerId} />
      <Field name="amount" label="Credits (negative takes)" placeholder="100" inputMode="numeric" errors={errors.amount} />
      <Field name="reason" label="Reason" placeholder="apology for the outage on May 1" errors={errors.reason} />
      <button type="submit" disabled={pending} className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700 disabled:opacity-60">
        Adjust
      </button>
      <p role="status" aria-live="polite" className={`text-sm sm:col-span-4 ${state.status === "error" ? "text-red-700 dark:text-red-300" : "text-emerald-700 dark:text-emerald-400"}`}>
        {state.message}
      </p>
    </form>
  );
}

function Field({ name, label, errors, ...rest }: { name: string; label: string; errors?: string[]; placeholder: string; inputMode?: "numeric" }) {
  return (
    <div>
      <label htmlFor={`adjust-${name}`} className="block text-sm font-medium">
        {label}
      </label>
      <input id={`adjust-${name}`} name={name} required aria-invalid={errors ? true : undefined} className={`mt-1 ${input}`} {...rest} />
      {errors ? <p className="mt-1 text-xs text-red-700 dark:text-red-300">{errors.join(" ")}</p> : null}
    </div>
  );
}
