// One generation, everything about it: the result, every field, the inputs it
// was made from, how it got here (timeline), and the raw JSON for QA.
import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { Elapsed } from "@/app/_components/elapsed";
import { formatElapsed, formatTimestamp } from "@/app/_components/format";
import { creditCount, failureNote } from "@/app/_components/generation-charge";
import { STATE_LABELS, StateBadge } from "@/app/_components/state-badge";
import { isTerminal, type Generation } from "@/lib/generations/generation";
import { getGenerationFresh } from "@/lib/generations/list-fresh";
import { getGeneration, listDeliveries } from "@/lib/generations/queries";
import { framesUnavailableReason } from "@/lib/media/frame-support";
import { isCopying } from "@/lib/copies/media-copy";
import { findModel, KIND_LABELS } from "@/lib/models/catalog";
import { isUploadId } from "@/lib/models/input-schema";
import type { MediaFormat } from "@/lib/models/media-limits";
import { findUploads } from "@/lib/uploads/upload-store";
import { pageMetadata, truncateTitle } from "@/lib/brand/page-metadata";
import { getViewer } from "@/lib/viewer/get-viewer";
import { galleryScope } from "@/lib/viewer/with-viewer";
import { DetailActions } from "./_components/detail-actions";
import { RefreshWhilePending } from "./_components/refresh-while-pending";
import { Result } from "./_components/result";
import { Timeline } from "./_components/timeline";
import { InputValue, type InputUpload } from "./_components/input-value";

export const dynamic = "force-dynamic";

const card = "rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 dark:bg-zinc-900 dark:ring-zinc-800";

type Params = { params: Promise<{ id: string }> };

/** The tab and the link preview name the video by its prompt. A plain read: the page itself polls a stale task. */
export async function generateMetadata({ params }: Params): Promise<Metadata> {
  // Scoped like the page: another owner's prompt never reaches the title of a 404.
  const viewer = await getViewer();
  const generation = viewer ? await getGeneration({ id: (await params).id, owner: galleryScope(viewer) }) : null;
  if (!generation) return { title: "Generation not found" };
  const model = findModel(generation.model);
  return pageMetadata({
    title: truncateTitle(generation.prompt),
    description: `${STATE_LABELS[generation.state]} · ${model ? `${model.label} · ${KIND_LABELS[model.kind]}` : generation.model}`,
  });
}

export default async function GenerationPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const viewer = await getViewer();
  // Another owner's generation is a 404, exactly like one that does not exist.
  const generation = viewer ? await getGenerationFresh({ id, owner: galleryScope(viewer) }) : null;
  if (!viewer || !generation) notFound();
  // The showcase (GALLERY_SCOPE=shared) shows others' videos, not how they were made.
  const own = !generation.showcase;
  const model = findModel(generation.model);
  const inputs = Object.entries(generation.input).filter(([name]) => name !== "prompt");
  // The owner's uploads among the inputs, shown as thumbnails; another owner's showcase names none.
  const uploadIds = own ? inputs.flatMap(([, value]) => (Array.isArray(value) ? value : [value])).filter(isUploadId) : [];
  const [deliveries, framesUnavailable, uploads] = await Promise.all([
    own ? listDeliveries({ generationId: id }) : [],
    framesUnavailableReason(),
    uploadIds.length ? findUploads({ ids: uploadIds, ownerId: viewer.id }) : [],
  ]);
  const inputUploads = new Map<string, InputUpload>(uploads.map((u) => [u.id, { id: u.id, format: u.format as MediaFormat, width: u.width, height: u.height }]));
  const pending = !isTerminal(generation.state);
  // Also kept live while the result is being copied into storage.
  const changing = pending || (generation.state === "SUCCESS" && isCopying(generation));
  const fields = new Map(model?.fields.map((f) => [f.name, f.label]));

  return (
    <main id="main" className="mx-auto max-w-6xl space-y-6 px-4 py-6 sm:px-6">
      <RefreshWhilePending id={generation.id} state={generation.state} pending={changing} callbacks={generation.callbackEnabled} />
      <Link
        href="/"
        className="inline-block rounded text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400"
      >
        ← Gallery
      </Link>
      <header className="space-y-2">
        <div className="flex flex-wrap items-center gap-3 text-sm">
          <span aria-live="polite">
            <StateBadge state={generation.state} overdue={generation.overdue} />
          </span>
          {pending ? <Elapsed since={generation.createdAt} className="text-zinc-600 dark:text-zinc-400" /> : null}
        </div>
        <h1 className="text-lg font-semibold break-words sm:text-xl">{generation.prompt}</h1>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">
          {model ? `${model.label} · ${KIND_LABELS[model.kind]}` : generation.model}
        </p>
        <DetailActions generation={generation} own={own} framesUnavailable={framesUnavailable} />
      </header>

      <div className="grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0 space-y-6">
          {generation.state === "SUCCESS" ? <Result generation={generation} /> : null}
          {generation.error ? (
            <p className="rounded-xl bg-red-50 p-4 text-sm text-red-800 ring-1 ring-red-200 dark:bg-red-950/60 dark:text-red-200 dark:ring-red-900">
              {generation.error.message || "Generation failed."}
              {failureNote(generation) ? <span className="font-semibold"> {failureNote(generation)}</span> : null}
            </p>
          ) : null}

          <section aria-labelledby="fields" className={card}>
            <h2 id="fields" className="mb-3 font-semibold">
              Details
            </h2>
            <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_minmax(0,1fr)] sm:gap-y-2">
              <Row term="Model" value={<code className="break-all">{generation.model}</code>} />
              <Row term="Generation id" value={<code className="break-all">{generation.id}</code>} />
              <Row term="Task id" value={<code className="break-all">{generation.taskId ?? "—"}</code>} />
              <Row term="Credits" value={<span data-testid="detail-credits">{describeCredits(generation)}</span>} />
              <Row term="Error" value={generation.error ? <code className="break-all">{generation.error.code}</code> : "—"} />
              <Row term="Callbacks" value={describeCallbacks(generation)} />
              {generation.notFoundSince ? (
                <Row
                  term="Gateway"
                  value={
                    generation.lost
                      ? "lost: the gateway has not known this task for hours; still checked now and then, and a late result still appears here"
                      : "the gateway does not know this task (yet); checked again on a long backoff"
                  }
                />
              ) : null}
              <Row term="Overdue" value={generation.overdue ? "yes: taking far longer than usual" : "no"} />
              <Row term="Created" value={<Timestamp iso={generation.createdAt} />} />
              <Row term="Updated" value={<Timestamp iso={generation.updatedAt} />} />
              <Row term="Completed" value={generation.completedAt ? <Timestamp iso={generation.completedAt} /> : "—"} />
              {generation.completedAt ? (
                <Row term="Took" value={formatElapsed(Date.parse(generation.completedAt) - Date.parse(generation.createdAt))} />
              ) : null}
            </dl>
          </section>

          <section aria-labelledby="inputs" className={card}>
            <h2 id="inputs" className="mb-3 font-semibold">
              Inputs
            </h2>
            {inputs.length ? (
              <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-[max-content_minmax(0,1fr)] sm:gap-y-2">
                {inputs.map(([name, value]) => (
                  <Row key={name} term={fields.get(name) ?? name} value={<InputValue value={value} uploads={inputUploads} />} />
                ))}
              </dl>
            ) : (
              <p className="text-sm text-zinc-600 dark:text-zinc-400">Only the prompt.</p>
            )}
          </section>
        </div>

        <section aria-labelledby="timeline" className={`${card} h-fit`}>
          <h2 id="timeline" className="mb-4 font-semibold">
            Timeline
          </h2>
          <Timeline generation={generation} deliveries={deliveries} />
        </section>
      </div>

      <details className={`${card} text-sm`}>
        <summary className="cursor-pointer rounded font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
          Raw generation JSON
        </summary>
        <RawJson label="Generation" value={generation} testId="raw-json" />
        <RawJson label="Deliveries" value={deliveries} />
      </details>
    </main>
  );
}

/** What the generation costs its owner, in the kit's credits (the gateway's own figure is the operator's, on /admin). */
function describeCredits({ state, charge }: Pick<Generation, "state" | "charge">): string {
  if (!charge) return "—";
  switch (charge.status) {
    case "held":
      return state === "FAILURE" || state === "SUBMIT_FAILED"
        ? `${creditCount(charge.credits)} held until the gateway confirms it never ran, then given back`
        : `${creditCount(charge.credits)} held · charged only on success, never more`;
    case "captured":
      return creditCount(charge.credits);
    case "released":
      return `Not charged · ${creditCount(charge.credits)} held, given back`;
  }
}

/** What callbacks will really do for this generation. */
function describeCallbacks(generation: { callbackEnabled: boolean; taskId: string | null }): string {
  if (generation.callbackEnabled) return "enabled";
  return generation.taskId
    ? "disabled: followed by polling"
    : "disabled: a task the gateway may have started cannot be followed here";
}

function Row({ term, value }: { term: string; value: React.ReactNode }) {
  return (
    <>
      <dt className="font-medium text-zinc-600 dark:text-zinc-400">{term}</dt>
      <dd className="mb-2 min-w-0 break-words sm:mb-0">{value}</dd>
    </>
  );
}

function Timestamp({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} className="tabular-nums">
      {formatTimestamp(iso)}
    </time>
  );
}

function RawJson({ label, value, testId }: { label: string; value: unknown; testId?: string }) {
  return (
    <>
      <h3 className="mt-4 mb-1 text-xs font-semibold text-zinc-600 uppercase dark:text-zinc-400">{label}</h3>
      <pre className="max-h-[32rem] overflow-auto rounded-lg bg-zinc-100 p-3 text-xs dark:bg-zinc-950" data-testid={testId}>
        {JSON.stringify(value, null, 2)}
      </pre>
    </>
  );
}
