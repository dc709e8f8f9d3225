import { CreditsBadge } from "./_components/credits-badge";
import { Gallery } from "./_components/gallery";
import { GenerationForm } from "./_components/generation-form";
import { DEFAULT_MODEL_ID, MODELS } from "@/lib/models/catalog";
import { listGenerations } from "@/lib/generations/queries";

export const dynamic = "force-dynamic";

export default async function HomePage() {
  const initialPage = await listGenerations({ limit: 24 });
  return (
    <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
      <header className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-xl font-bold tracking-tight">Framehook</h1>
        <CreditsBadge />
      </header>
      <main className="grid gap-8 lg:grid-cols-[minmax(0,380px)_1fr]">
        <section aria-labelledby="new-video">
          <h2 id="new-video" className="mb-3 text-base font-semibold">
            New video
          </h2>
          <GenerationForm models={MODELS} defaultModelId={DEFAULT_MODEL_ID} />
        </section>
        <section aria-labelledby="gallery">
          <h2 id="gallery" className="mb-3 text-base font-semibold">
            Gallery
          </h2>
          <Gallery initialPage={initialPage} />
        </section>
      </main>
    </div>
  );
}
