// The signed-in person's account: email (and the emails it gets), passkeys, sessions, and deleting it all.
import Link from "next/link";
import { redirect } from "next/navigation";
import { formatTimestamp } from "@/app/_components/format";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { prisma } from "@/lib/db";
import { signedInRecently } from "@/lib/viewer/delete-account";
import { getViewer } from "@/lib/viewer/get-viewer";
import { emailSignInEnabled } from "@/lib/auth/mail";
import { readyEmailsChosen } from "@/lib/notifications/email-settings";
import { chooseReadyEmailsAction, signOut, signOutEverywhere, signOutSession } from "./actions";
import { DeleteAccount } from "./_components/delete-account";
import { Passkeys } from "./_components/passkeys";

export const dynamic = "force-dynamic";
export const metadata = pageMetadata({ title: "Account", description: "Your email, passkeys and sessions." });

const card = "space-y-3 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800";
const linkButton = "rounded text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-brand-400";

export default async function AccountPage({ searchParams }: { searchParams: Promise<{ saved?: string }> }) {
  const viewer = await getViewer();
  if (!viewer?.account) redirect("/sign-in");
  const { userId, email, sessionId } = viewer.account;
  const saved = (await searchParams).saved === "emails";
  const [passkeys, sessions, readyEmails] = await Promise.all([
    prisma.passkey.findMany({ where: { userId }, orderBy: { createdAt: "asc" }, select: { id: true, name: true, createdAt: true } }),
    prisma.session.findMany({
      where: { userId, expiresAt: { gt: new Date() } },
      orderBy: { createdAt: "desc" },
      select: { id: true, createdAt: true, userAgent: true },
    }),
    readyEmailsChosen({ userId }),
  ]);
  // Deleting is a fresh decision: this browser's session must have signed in within the last day.
  const current = sessions.find((session) => session.id === sessionId);
  const mayDelete = current !== undefined && signedInRecently(current.createdAt);
  return (
    <main id="main" className="mx-auto max-w-2xl space-y-6 px-4 py-8 sm:px-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-xl font-semibold">Account</h1>
        <form action={signOut}>
          <button type="submit" className={linkButton}>
            Sign out
          </button>
        </form>
      </div>
      <section aria-labelledby="account-email" className={card}>
        <h2 id="account-email" className="text-base font-semibold">
          Email
        </h2>
        <p className="text-sm">{email}</p>
        {emailSignInEnabled() ? (
          <form action={chooseReadyEmailsAction} className="flex flex-wrap items-center gap-3 border-t border-zinc-200 pt-3 dark:border-zinc-800">
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name="readyEmails"
                defaultChecked={readyEmails}
                className="size-4 rounded border-zinc-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
              />
              Email me when each video is ready (or could not be made)
            </label>
            <button type="submit" className={linkButton}>
              Save
            </button>
            {saved ? (
              <p role="status" className="w-full text-sm text-emerald-700 dark:text-emerald-400">
                {readyEmails ? "Saved: you will get an email when each video is ready." : "Saved: no emails when videos are ready."}
              </p>
            ) : null}
          </form>
        ) : null}
      </section>
      <section aria-labelledby="account-passkeys" className={card}>
        <h2 id="account-passkeys" className="text-base font-semibold">
          Passkeys
        </h2>
        <Passkeys passkeys={passkeys.map((p) => ({ id: p.id, name: p.name, createdAt: p.createdAt?.toISOString() ?? null }))} />
      </section>
      <section aria-labelledby="account-sessions" className={card}>
        <h2 id="account-sessions" className="text-base font-semibold">
          Signed in on
        </h2>
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {sessions.map((session) => (
            <li key={session.id} className="flex flex-wrap items-center justify-between gap-2 py-2 text-sm">
              <span>
                <span className="font-medium">{describeBrowser(session.userAgent)}</span>
                <span className="text-zinc-500"> · since {formatTimestamp(session.createdAt.toISOString())}</span>
                {session.id === sessionId ? <span className="ml-2 rounded bg-brand-50 px-1.5 py-0.5 text-xs font-medium text-brand-700 dark:bg-brand-700/20 dark:text-brand-400">This browser</span> : null}
              </span>
              <form action={signOutSession}>
                <input type="hidden" name="sessionId" value={session.id} />
                <button type="submit" className={linkButton}>
                  Sign out
                </button>
              </form>
            </li>
          ))}
        </ul>
        <form action={signOutEverywhere}>
          <button type="submit" className={linkButton}>
            Sign out everywhere
          </button>
        </form>
      </section>
      <section aria-labelledby="account-delete" className={card}>
        <h2 id="account-delete" className="text-base font-semibold">
          Delete account
        </h2>
        {mayDelete ? (
          <DeleteAccount email={email} />
        ) : (
          <p className="text-sm text-zinc-700 dark:text-zinc-300" data-testid="delete-needs-sign-in">
            Deleting your account cannot be undone, so it needs a sign-in from the last day, and this browser signed in earlier.{" "}
            <Link href="/sign-in?again" className="font-medium underline">
              Sign in again
            </Link>{" "}
            with an email link or a passkey, then come back here.
          </p>
        )}
      </section>
    </main>
  );
}

/** "Chrome on Linux" from a User-Agent; the raw string is never shown. */
function describeBrowser(userAgent: string | null): string {
  if (!userAgent) return "A browser";
  const browser = /Edg\//.test(userAgent) ? "Edge" : /Firefox\//.test(userAgent) ? "Firefox" : /Chrom(e|ium)\//.test(userAgent) ? "Chrome" : /Safari\//.test(userAgent) ? "Safari" : "A browser";
  const system = /Android/.test(userAgent) ? "Android" : /iPhone|iPad/.test(userAgent) ? "iOS" : /Mac OS X/.test(userAgent) ? "macOS" : /Windows/.test(userAgent) ? "Windows" : /Linux/.test(userAgent) ? "Linux" : null;
  return system ? `${browser} on ${system}` : browser;
}
