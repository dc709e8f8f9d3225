// Where an emailed sign-in link opens. Opening it signs nobody in: mail
// scanners (Safe Links, Proofpoint, Mimecast) open every link in an email,
// some running its JavaScript, and a link used up by them would greet the
// person with "expired". The button signs in (a POST, which scanners do not
// send), and says first which address it signs in to and whether this browser
// asked for the link.
import Link from "next/link";
import { cookies } from "next/headers";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { ASKER_COOKIE, isAsker } from "@/lib/auth/sign-in-binding";
import { findSignInLink } from "@/lib/auth/sign-in-link";
import { ConfirmLinkForm } from "../_components/confirm-link-form";

export const dynamic = "force-dynamic";
export const metadata = { ...pageMetadata({ title: "Sign in", description: "Confirm your sign-in." }), robots: { index: false, follow: false }, referrer: "no-referrer" as const };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;
const one = (value: string | string[] | undefined) => (typeof value === "string" ? value : null);

export default async function SignInLinkPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const token = one(params.token);
  const asker = one(params.asker);
  const link = token ? await findSignInLink({ token }) : null;
  const askedHere = isAsker({ nonce: (await cookies()).get(ASKER_COOKIE)?.value, tag: asker });
  return (
    <main id="main" className="mx-auto max-w-md space-y-4 px-4 py-10 sm:px-6">
      <h1 className="text-xl font-semibold">Sign in</h1>
      <div className="space-y-4 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
        {link && token ? (
          <>
            <p className="text-sm text-zinc-700 dark:text-zinc-300">
              This link signs you in as <strong>{link.email}</strong>.
            </p>
            {askedHere ? null : (
              <p className="rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100">
                This link was asked for in another browser. Signing in here moves nothing you made in this browser to that account. If you did not
                ask for a link to {link.email}, close this page.
              </p>
            )}
            <ConfirmLinkForm token={token} asker={asker} email={link.email} />
          </>
        ) : (
          <>
            <p role="alert" className="rounded-lg bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
              That sign-in link has expired or was already used. Ask for a new one.
            </p>
            <Link href="/sign-in" className="inline-block text-sm font-medium text-brand-700 underline dark:text-brand-400">
              Ask for a new link
            </Link>
          </>
        )}
      </div>
    </main>
  );
}
