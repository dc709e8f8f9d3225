import { Gallery } from "./_components/gallery";
import { GenerationForm } from "./_components/generation-form";
import type { GenerationFilters } from "./_components/use-generations";
import { brand } from "@/lib/brand";
import { GENERATION_STATES, type GenerationState } from "@/lib/generations/generation";
import { listGenerations } from "@/lib/generations/queries";
import { DEFAULT_MODEL_ID, findModel, MODELS } from "@/lib/models/catalog";
import { pageMetadata } from "@/lib/page-metadata";

export const dynamic = "force-dynamic";

export const metadata = pageMetadata({ title: `${brand.name} · ${brand.tagline}`, description: brand.description, absolute: true });

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function HomePage({ searchParams }: { searchParams: SearchParams }) {
  const filters = parseFilters(await searchParams);
  const initialPage = await listGenerations({ limit: 24, ...filters });
  return (
    <main id="main" className="mx-auto grid max-w-6xl gap-8 px-4 py-6 sm:px-6 lg:grid-cols-[minmax(0,380px)_1fr]">
      <h1 className="sr-only">{brand.name}</h1>
      <section aria-labelledby="new-video">
        <h2 id="new-video" className="mb-3 text-base font-semibold">
          New video
        </h2>
        <GenerationForm models={MODELS} defaultModelId={DEFAULT_MODEL_ID} />
      </section>
      <section aria-labelledby="gallery" className="min-w-0">
        <h2 id="gallery" className="mb-3 text-base font-semibold">
          Gallery
        </h2>
        <Gallery initialPage={initialPage} initialFilters={filters} models={MODELS} />
      </section>
    </main>
  );
}

/** Filters from the address bar; unknown values are ignored rather than refused. */
function parseFilters(params: Awaited<SearchParams>): GenerationFilters {
  const state = GENERATION_STATES.find((s: GenerationState) => s === params.state);
  const model = typeof params.model === "string" && findModel(params.model) ? params.model : undefined;
  return { ...(state ? { state } : {}), ...(model ? { model } : {}) };
}
