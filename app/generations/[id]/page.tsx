import Link from "next/link";
import { notFound } from "next/navigation";
import { StateBadge } from "@/app/_components/state-badge";
import { formatCredits } from "@/app/_components/credits-badge";
import { getGenerationFresh } from "@/lib/generations/list-fresh";
import { listDeliveries } from "@/lib/generations/queries";

export const dynamic = "force-dynamic";

export default async function GenerationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const generation = await getGenerationFresh({ id });
  if (!generation) notFound();
  const deliveries = await listDeliveries({ generationId: id });
  const url = generation.resultUrls[0];

  return (
    <main className="mx-auto max-w-4xl space-y-6 px-4 py-6 sm:px-6">
      <Link href="/" className="text-sm font-medium text-brand-600 hover:underline dark:text-brand-400">
        ← Gallery
      </Link>
      <header className="space-y-2">
        <StateBadge state={generation.state} overdue={generation.overdue} />
        <h1 className="text-lg font-semibold break-words">{generation.prompt}</h1>
      </header>
      {generation.state === "SUCCESS" && url ? (
        <video src={url} controls preload="metadata" playsInline className="aspect-video w-full rounded-2xl bg-black" />
      ) : null}
      <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
        <Row term="Model" value={<code>{generation.model}</code>} />
        <Row term="Task id" value={<code>{generation.taskId ?? "—"}</code>} />
        <Row term="Credits" value={generation.creditsConsumed === null ? "—" : formatCredits(generation.creditsConsumed)} />
        <Row term="Error" value={generation.error ? `${generation.error.message} (${generation.error.code}) · not charged` : "—"} />
        <Row term="Callbacks" value={generation.callbackEnabled ? "enabled" : "disabled: followed by polling"} />
        <Row term="Created" value={generation.createdAt} />
        <Row term="Completed" value={generation.completedAt ?? "—"} />
      </dl>
      <section aria-labelledby="timeline">
        <h2 id="timeline" className="mb-2 font-semibold">
          Timeline
        </h2>
        <ol className="space-y-1 text-sm">
          <li>
            <time className="tabular-nums text-zinc-500">{generation.createdAt}</time> submitted
          </li>
          {deliveries.map((d) => (
            <li key={d.id} data-testid="delivery">
              <time className="tabular-nums text-zinc-500">{d.createdAt}</time> {d.source === "CALLBACK" ? "callback" : "poll"}
              {d.reportedState ? ` reported ${d.reportedState}` : ""} → <strong>{d.outcome.toLowerCase().replaceAll("_", " ")}</strong>
              {d.detail ? ` (${d.detail})` : ""}
            </li>
          ))}
        </ol>
      </section>
      <details className="text-sm">
        <summary className="cursor-pointer font-semibold">Raw generation JSON</summary>
        <pre className="mt-2 overflow-x-auto rounded-lg bg-zinc-100 p-3 text-xs dark:bg-zinc-900">{JSON.stringify(generation, null, 2)}</pre>
      </details>
    </main>
  );
}

function Row({ term, value }: { term: string; value: React.ReactNode }) {
  return (
    <>
      <dt className="font-medium text-zinc-500 dark:text-zinc-400">{term}</dt>
      <dd className="break-words">{value}</dd>
    </>
  );
}
