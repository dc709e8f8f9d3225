"use client";
// The "New video" panel: one model (the generation form) or several compared
// on one prompt (the compare form). The generation form stays mounted, so
// switching back keeps what was typed in it.
import { useState } from "react";
import type { CreditPricing } from "@/lib/credits/prices";
import type { ModelSpec } from "@/lib/models/catalog";
import { CompareForm } from "./compare-form";
import { GenerationForm, type ReadyEmailOffer } from "./generation-form";

type Mode = "single" | "compare";
const MODES: { mode: Mode; label: string }[] = [
  { mode: "single", label: "One model" },
  { mode: "compare", label: "Compare models" },
];

export function NewVideoModes({
  models,
  defaultModelId,
  pricing,
  readyEmail,
}: {
  models: readonly ModelSpec[];
  defaultModelId: string;
  pricing: CreditPricing | null;
  readyEmail: ReadyEmailOffer;
}) {
  const [mode, setMode] = useState<Mode>("single");
  return (
    <div className="space-y-3">
      <div role="group" aria-label="Mode" className="inline-flex rounded-lg bg-zinc-100 p-1 text-sm dark:bg-zinc-800">
        {MODES.map((m) => (
          <button
            key={m.mode}
            type="button"
            aria-pressed={mode === m.mode}
            onClick={() => setMode(m.mode)}
            className="rounded-md px-3 py-1 font-medium text-zinc-700 aria-pressed:bg-white aria-pressed:text-zinc-900 aria-pressed:shadow-sm focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-zinc-300 dark:aria-pressed:bg-zinc-950 dark:aria-pressed:text-zinc-100"
          >
            {m.label}
          </button>
        ))}
      </div>
      <div hidden={mode !== "single"}>
        <GenerationForm models={models} defaultModelId={defaultModelId} pricing={pricing} readyEmail={readyEmail} />
      </div>
      {mode === "compare" ? <CompareForm models={models} pricing={pricing} /> : null}
    </div>
  );
}
