// Where every sign-in lands (email link, passkey, OAuth): if this browser's
// guest made anything, ask whether to keep it; otherwise go home.
import { redirect } from "next/navigation";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { guestClaimedBy, guestHoldings, holdsAnything } from "@/lib/viewer/claim-guest";
import { getViewer } from "@/lib/viewer/get-viewer";
import { ClaimForm } from "./claim-form";

export const dynamic = "force-dynamic";
export const metadata = pageMetadata({ title: "Welcome", description: "Keep what you made before signing in." });

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export default async function WelcomePage() {
  const viewer = await getViewer();
  if (!viewer?.account) redirect("/sign-in");
  const guestId = viewer.guestId;
  const claimedBy = guestId ? await guestClaimedBy(guestId) : null;
  const holdings = guestId && (claimedBy === null || claimedBy === viewer.account.userId) ? await guestHoldings(guestId) : null;
  if (!holdings || !holdsAnything(holdings)) redirect("/");
  const held = [
    holdings.generations ? plural(holdings.generations, "video", "videos") : null,
    holdings.uploads ? plural(holdings.uploads, "upload", "uploads") : null,
    holdings.purchases && holdings.credits > 0 ? "credits you bought" : null,
  ]
    .filter(Boolean)
    .join(", ")
    .replace(/, ([^,]*)$/, " and $1");
  return (
    <main id="main" className="mx-auto max-w-md space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-xl font-semibold">You are signed in as {viewer.account.email}</h1>
      <div className="space-y-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
        <h2 className="text-base font-semibold">
          Keep the {held} {holdings.purchases ? "in" : "made in"} this browser?
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">They move to your account, so you see them on every device where you sign in.</p>
        <ClaimForm />
      </div>
    </main>
  );
}
