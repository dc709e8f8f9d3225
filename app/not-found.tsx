// Any address the app does not know, and a generation that does not exist (or
// is not yours): the site's own page rather than Next's unstyled default, whose
// title would also replace the page's own ("Generation not found"). A link from
// a ready email opened where its account is not signed in lands here too, so
// it offers to sign in (for any address: it tells nothing about what exists).
import Link from "next/link";

export default function NotFound() {
  return (
    <main id="main" className="mx-auto max-w-6xl space-y-3 px-4 py-16 text-center sm:px-6">
      <p className="text-sm font-semibold text-brand-700 dark:text-brand-400">404</p>
      <h1 className="text-xl font-semibold">Nothing here</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">This page does not exist, or it is not yours to see.</p>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        A video of your account?{" "}
        <Link href="/sign-in" className="font-medium text-brand-700 underline dark:text-brand-400">
          Sign in
        </Link>{" "}
        with it, then open the link again.
      </p>
      <Link
        href="/"
        className="inline-block rounded text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 dark:text-brand-400"
      >
        ← Gallery
      </Link>
    </main>
  );
}
