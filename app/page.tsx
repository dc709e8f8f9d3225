import { FrameSupport } from "./_components/frame-support";
import { Gallery } from "./_components/gallery";
import type { ReadyEmailOffer } from "./_components/generation-form";
import { NewVideoModes } from "./_components/new-video-modes";
import { PAGE_SIZE, type GenerationFilters } from "./_components/client-data";
import { brand } from "@/lib/brand";
import { formPricing } from "@/lib/credits/pricing";
import { GENERATION_STATES, type GenerationState } from "@/lib/generations/generation";
import { getCompletionTimes } from "@/lib/generations/completion-history";
import { listGenerations } from "@/lib/generations/queries";
import { framesUnavailableReason } from "@/lib/media/frame-support";
import { SEARCH_MAX_LENGTH } from "@/lib/generations/search-text";
import { DEFAULT_MODEL_ID, findModel, MODELS } from "@/lib/models/catalog";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { emailSignInEnabled } from "@/lib/auth/mail";
import { readyEmailsChosen } from "@/lib/notifications/email-settings";
import { getViewer, type Viewer } from "@/lib/viewer/get-viewer";
import { galleryScope } from "@/lib/viewer/with-viewer";

export const dynamic = "force-dynamic";

export const metadata = pageMetadata({ title: `${brand.name} · ${brand.tagline}`, description: brand.description, absolute: true });

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function HomePage({ searchParams }: { searchParams: SearchParams }) {
  const filters = parseFilters(await searchParams);
  const viewer = await getViewer();
  const [initialPage, completionTimes, framesUnavailable, readyEmail] = await Promise.all([
    viewer ? listGenerations({ limit: PAGE_SIZE, ...filters, owner: galleryScope(viewer) }) : { items: [], nextCursor: null },
    getCompletionTimes(),
    framesUnavailableReason(),
    readyEmailOffer(viewer),
  ]);
  return (
    <FrameSupport reason={framesUnavailable}>
      <main id="main" className="mx-auto grid max-w-screen-2xl gap-8 px-4 py-6 sm:px-6 lg:grid-cols-[340px_minmax(0,1fr)]">
        <h1 className="sr-only">{brand.name}</h1>
        <section aria-labelledby="new-video">
          <h2 id="new-video" className="mb-3 text-base font-semibold">
            New video
          </h2>
          <NewVideoModes models={MODELS} defaultModelId={DEFAULT_MODEL_ID} pricing={formPricing()} readyEmail={readyEmail} />
        </section>
        <section aria-labelledby="gallery" className="min-w-0">
          <h2 id="gallery" className="mb-3 text-base font-semibold">
            Gallery
          </h2>
          <Gallery initialPage={initialPage} initialFilters={filters} models={MODELS} initialCompletionTimes={completionTimes} />
        </section>
      </main>
    </FrameSupport>
  );
}

/** Filters from the address bar; unknown values are ignored rather than refused. */
function parseFilters(params: Awaited<SearchParams>): GenerationFilters {
  const state = GENERATION_STATES.find((s: GenerationState) => s === params.state);
  const model = typeof params.model === "string" && findModel(params.model) ? params.model : undefined;
  const q = typeof params.q === "string" ? params.q.trim().slice(0, SEARCH_MAX_LENGTH) : "";
  return { ...(state ? { state } : {}), ...(model ? { model } : {}), ...(q ? { q } : {}) };
}

/** The box for an account (ticked as it last chose), sign-in for a guest; nothing where no email can be sent. */
async function readyEmailOffer(viewer: Viewer | null): Promise<ReadyEmailOffer> {
  if (!emailSignInEnabled()) return null;
  if (!viewer?.account) return { kind: "sign-in" };
  return { kind: "choose", chosen: await readyEmailsChosen({ userId: viewer.account.userId }) };
}
