"use client";
// What an empty gallery says: how to start (example prompts that fill the
// form), or, when filters hide everything, how to see it again.
import { fillPrompt } from "./generation-form";

const EXAMPLE_PROMPTS = [
  "A paper boat drifting down a rain-soaked street at dusk",
  "Slow aerial shot over a misty pine forest at sunrise",
  "A red fox curled up asleep in fresh snow, soft light",
  "Close-up of coffee being poured into a glass cup, steam rising",
];

const box = "rounded-2xl border border-dashed border-zinc-300 p-6 text-sm sm:p-8 dark:border-zinc-700";

export function EmptyGallery({ filtered, onClearFilters }: { filtered: boolean; onClearFilters: () => void }) {
  if (filtered) {
    return (
      <div className={`${box} text-center`}>
        <p className="font-medium">No videos match these filters.</p>
        <button
          type="button"
          onClick={onClearFilters}
          className="mt-3 rounded-lg px-3 py-1.5 font-medium text-brand-700 ring-1 ring-zinc-300 hover:bg-zinc-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400 dark:ring-zinc-700 dark:hover:bg-zinc-800"
        >
          Show all videos
        </button>
      </div>
    );
  }
  return (
    <div className={box}>
      <p className="text-base font-semibold">No videos yet</p>
      <p className="mt-1 text-zinc-600 dark:text-zinc-400">
        Describe a shot: the subject, the setting, the light and how the camera moves. Pick one to start from:
      </p>
      <ul className="mt-4 grid gap-2 sm:grid-cols-2">
        {EXAMPLE_PROMPTS.map((prompt) => (
          <li key={prompt}>
            <button
              type="button"
              onClick={() => fillPrompt(prompt)}
              className="h-full w-full rounded-xl bg-white px-3 py-2 text-left shadow-sm ring-1 ring-zinc-200 hover:ring-brand-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:bg-zinc-900 dark:ring-zinc-800 dark:hover:ring-brand-400"
            >
              <span className="sr-only">Use the example: </span>“{prompt}”
            </button>
          </li>
        ))}
      </ul>
      <p className="mt-4 text-xs text-zinc-600 dark:text-zinc-400">
        Videos appear here as soon as you submit; you are charged only for the ones that succeed.
      </p>
    </div>
  );
}
