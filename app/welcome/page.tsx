// Where every sign-in lands (email link, passkey, OAuth): if this browser's
// guest made anything, ask whether to keep it; otherwise go home. A browser
// that opened a link asked for elsewhere is told that its guest stays as it
// is, and is asked nothing: the link's sender must not receive its work.
import { headers } from "next/headers";
import Link from "next/link";
import { redirect } from "next/navigation";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { showCreditBalance } from "@/lib/credits/balance";
import { formatCreditCount } from "@/lib/credits/prices";
import { visitorKey } from "@/lib/rate-limit";
import { guestClaimedBy, guestHoldings, holdsAnything, readClaimCredits, type ClaimCredits } from "@/lib/viewer/claim-guest";
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
  // The account is welcomed first, as its header would, and as the claim does: the prompt tells what the click will do.
  await showCreditBalance({ ownerId: viewer.id, visitor: visitorKey(await headers()) });
  const credits = await readClaimCredits({ guestId: guestId!, owner: viewer.id });
  const held = [
    holdings.generations ? plural(holdings.generations, "video", "videos") : null,
    holdings.uploads ? plural(holdings.uploads, "upload", "uploads") : null,
    holdings.purchases && holdings.credits > 0 ? "credits you bought" : null,
  ]
    .filter(Boolean)
    .join(", ")
    .replace(/, ([^,]*)$/, " and $1");
  if (!viewer.mayClaimGuest) {
    return (
      <main id="main" className="mx-auto max-w-md space-y-4 px-4 py-10 sm:px-6">
        <h1 className="text-xl font-semibold">You are signed in as {viewer.account.email}</h1>
        <div role="status" className="space-y-3 rounded-2xl bg-amber-50 p-6 text-sm text-amber-950 ring-1 ring-amber-200 dark:bg-amber-950 dark:text-amber-100 dark:ring-amber-800">
          <h2 className="text-base font-semibold">Nothing from this browser was moved</h2>
          <p>
            The sign-in link you opened was asked for in another browser, so what this browser holds as a guest ({held}) stays outside this
            account.
          </p>
          <p>
            Did you not ask for a link to {viewer.account.email}? Then someone may want your work in their account: sign out on the{" "}
            <Link href="/account" className="font-medium underline">
              account page
            </Link>
            . Was it you? To keep it, <Link href="/sign-in" className="font-medium underline">ask for a sign-in link</Link> from this browser.
          </p>
          <Link href="/" className="inline-block font-medium underline">
            Continue
          </Link>
        </div>
      </main>
    );
  }
  return (
    <main id="main" className="mx-auto max-w-md space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-xl font-semibold">You are signed in as {viewer.account.email}</h1>
      <div className="space-y-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
        <h2 className="text-base font-semibold">
          Keep the {held} {holdings.purchases ? "in" : "made in"} this browser?
        </h2>
        <p className="text-sm text-zinc-600 dark:text-zinc-400">They move to your account, so you see them on every device where you sign in.</p>
        <CreditsNote guestCredits={credits.guestCredits} welcomeTakenBack={credits.welcomeTakenBack} />
        <ClaimForm />
      </div>
    </main>
  );
}

/** The claim's rule for credits (docs/credits.md), said before the click: what comes, what does not, and why. */
function CreditsNote({ guestCredits, welcomeTakenBack }: Pick<ClaimCredits, "guestCredits" | "welcomeTakenBack">) {
  const coming = guestCredits - welcomeTakenBack;
  if (guestCredits <= 0) return null;
  return (
    <p className="text-sm text-zinc-600 dark:text-zinc-400" data-testid="claim-credits">
      {coming > 0 ? `${formatCreditCount(coming)} of this browser come too` : "No credits come with them"}
      {welcomeTakenBack > 0 ? `: the ${formatCreditCount(welcomeTakenBack)} left of the welcome it got as a guest are not added, as an account is welcomed once` : ""}. Your
      account&rsquo;s own credits stay as they are.
    </p>
  );
}
