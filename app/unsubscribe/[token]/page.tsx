// Where a ready email's "Stop these emails" link lands. Opening it (a person,
// or a mail scanner following every link) changes nothing: only its button,
// a POST to the one-click route, unsubscribes.
import { notFound } from "next/navigation";
import { brand } from "@/lib/brand";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { accountOfUnsubscribeLink } from "@/lib/notifications/unsubscribe";

export const dynamic = "force-dynamic";
export const metadata = { ...pageMetadata({ title: "Stop ready emails", description: "Stop the emails sent when a video is ready." }), robots: { index: false, follow: false } };

type Props = { params: Promise<{ token: string }>; searchParams: Promise<{ done?: string }> };

export default async function UnsubscribePage({ params, searchParams }: Props) {
  const { token } = await params;
  if (!accountOfUnsubscribeLink(token)) notFound();
  const done = (await searchParams).done !== undefined;
  return (
    <main id="main" className="mx-auto max-w-md space-y-4 px-4 py-16 sm:px-6">
      <h1 className="text-xl font-semibold">{done ? "You will get no more of these emails" : "Stop the emails when a video is ready?"}</h1>
      {done ? (
        <p role="status" className="text-sm text-zinc-700 dark:text-zinc-300">
          {brand.name} will not email you when your videos are ready, including the ones already on their way. To have them again, tick
          “Email me when it’s ready” beside Generate, or turn it on in your account.
        </p>
      ) : (
        <>
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            {brand.name} emails you when a video you asked about is ready or could not be made. Press the button to stop, for every video.
          </p>
          <form method="post" action={`/api/unsubscribe/${encodeURIComponent(token)}`}>
            <input type="hidden" name="List-Unsubscribe" value="One-Click" />
            <input type="hidden" name="from" value="page" />
            <button
              type="submit"
              className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
            >
              Stop these emails
            </button>
          </form>
        </>
      )}
    </main>
  );
}
