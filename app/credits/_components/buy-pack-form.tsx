"use client";
// One pack's Buy button: starts a checkout and follows its redirect to the
// payment page; a refusal is announced under the button.
import { useActionState } from "react";
import { useFormStatus } from "react-dom";
import { buyCreditsAction, type BuyCreditsState } from "../actions";

const initial: BuyCreditsState = { status: "idle" };

export function BuyPackForm({ packId, packName, disabled }: { packId: string; packName: string; disabled?: boolean }) {
  const [state, action] = useActionState(buyCreditsAction, initial);
  return (
    <form action={action} className="space-y-2">
      <input type="hidden" name="packId" value={packId} />
      <BuyButton label={`Buy ${packName}`} disabled={disabled} />
      <p role="status" aria-live="polite" className="text-sm font-medium text-red-700 dark:text-red-400">
        {state.status === "error" ? state.message : null}
      </p>
    </form>
  );
}

function BuyButton({ label, disabled }: { label: string; disabled?: boolean }) {
  const { pending } = useFormStatus();
  return (
    <button
      type="submit"
      disabled={disabled || pending}
      className="w-full rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
    >
      {pending ? "Opening checkout…" : label}
    </button>
  );
}
