// Sign in (or sign up: an email link does both). A guest's videos stay theirs:
// after any sign-in the claim prompt (/welcome) offers to keep them.
import { redirect } from "next/navigation";
import { brand } from "@/lib/brand";
import { enabledSocialProviders } from "@/lib/auth/auth";
import { devMailboxEnabled } from "@/lib/auth/mail";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { getViewer } from "@/lib/viewer/get-viewer";
import { SignInForm } from "./_components/sign-in-form";

export const dynamic = "force-dynamic";
export const metadata = pageMetadata({ title: "Sign in", description: `Sign in to ${brand.name} to keep your videos on every device.` });

const LINK_ERRORS: Record<string, string> = {
  INVALID_TOKEN: "That sign-in link has expired or was already used. Ask for a new one.",
};

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  // A browser signed in by a link asked for elsewhere may ask for its own here, to keep its guest's work.
  // One signed in may sign in again (`?again`): deleting the account asks for a sign-in from the last day.
  const viewer = await getViewer();
  const { error, again } = await searchParams;
  if (viewer?.signedIn && viewer.mayClaimGuest && again === undefined) redirect("/account");
  const linkError = typeof error === "string" ? (LINK_ERRORS[error] ?? "That sign-in link did not work. Ask for a new one.") : null;
  return (
    <main id="main" className="mx-auto max-w-md space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-xl font-semibold">Sign in</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        Keep your videos on every device. New here? The same link creates your account; what you made in this browser comes with you.
      </p>
      {linkError ? (
        <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
          {linkError}
        </p>
      ) : null}
      <div className="rounded-2xl bg-white p-6 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
        <SignInForm providers={enabledSocialProviders()} devMailbox={devMailboxEnabled()} />
      </div>
    </main>
  );
}
