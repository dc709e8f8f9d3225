// A comparison in the gallery: one card holding its videos' tiles side by
// side ("3 models"), which opens the comparison view. Each tile is still the
// video's own card (detail, remix, continue, delete).
import Link from "next/link";
import type { Generation } from "@/lib/generations/generation";

type Entry = Generation | { batchId: string; videos: Generation[] };

/** The gallery's entries in order: a comparison where its first listed video is, holding every listed video of it. */
export function groupBatches(generations: readonly Generation[]): Entry[] {
  const entries: Entry[] = [];
  const batches = new Map<string, { batchId: string; videos: Generation[] }>();
  for (const generation of generations) {
    if (!generation.batchId) {
      entries.push(generation);
      continue;
    }
    const batch = batches.get(generation.batchId);
    if (batch) {
      batch.videos.push(generation);
      continue;
    }
    const entry = { batchId: generation.batchId, videos: [generation] };
    batches.set(generation.batchId, entry);
    entries.push(entry);
  }
  // Listed newest first; a comparison's columns read in the order the models were asked for.
  for (const batch of batches.values()) batch.videos.sort((a, b) => (a.createdAt === b.createdAt ? a.id.localeCompare(b.id) : a.createdAt.localeCompare(b.createdAt)));
  return entries;
}

export function BatchCard({ batchId, count, children }: { batchId: string; count: number; children: React.ReactNode }) {
  return (
    <section aria-label={`Comparison of ${count} models`} className="rounded-2xl bg-zinc-50 p-2 ring-1 ring-zinc-200 dark:bg-zinc-950 dark:ring-zinc-800">
      <div className="flex items-center justify-between gap-2 px-1 pb-2 text-sm">
        <span className="font-semibold">{count === 1 ? "1 model" : `${count} models`}</span>
        <Link href={`/compare/${batchId}`} className="font-medium text-brand-700 underline hover:no-underline dark:text-brand-400">
          Open comparison
        </Link>
      </div>
      <ul className={`grid gap-2 ${count >= 3 ? "grid-cols-1 sm:grid-cols-3" : "grid-cols-1 sm:grid-cols-2"}`}>{children}</ul>
    </section>
  );
}
