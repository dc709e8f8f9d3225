// Summaries of repeated measurements, for the benchmarks that take several.

/** The middle value (the mean of the two middle ones for an even count), ignoring non-finite values; NaN when none is left. */
export function median(values: number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
