// Formatting shared by the gallery and the detail page, so both say the same
// thing the same way (and render identically on the server and in the browser).

export function formatCredits(credits: number): string {
  return credits.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 });
}

/** "0:07", "12:30", "1:02:03". */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const mmss = `${h ? String(m).padStart(2, "0") : m}:${String(s).padStart(2, "0")}`;
  return h ? `${h}:${mmss}` : mmss;
}

/** A timestamp in UTC, the same for every reader: "2026-05-01 12:00:03 UTC". */
export function formatTimestamp(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`;
}

/** An offset from a start time: "+0.4 s", "+12 s", "+3:05". */
export function formatOffset(fromIso: string, toIso: string): string {
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (ms < 10_000) return `+${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (ms < 60_000) return `+${Math.round(ms / 1000)} s`;
  return `+${formatElapsed(ms)}`;
}
