"use client";
// "Play all from the start" of a comparison, on the owner's view and the public page alike (usePlayTogether plays them).

export function PlayAllButton({ onPlay, disabled }: { onPlay: () => void; disabled: boolean }) {
  return (
    <button
      type="button"
      onClick={onPlay}
      disabled={disabled}
      className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white shadow-sm hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
    >
      Play all from the start
    </button>
  );
}
