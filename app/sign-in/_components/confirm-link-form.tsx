"use client";
// The link page's one button. Nothing presses it but a person: no effect
// submits it on load, so a scanner that runs the page's JavaScript leaves the
// link unused.
import { useActionState } from "react";
import { confirmSignInLink, type ConfirmLinkState } from "../actions";

const initial: ConfirmLinkState = { status: "idle" };

export function ConfirmLinkForm({ token, asker, email }: { token: string; asker: string | null; email: string }) {
  const [state, action, pending] = useActionState(confirmSignInLink.bind(null, token, asker), initial);
  return (
    <form action={action} className="space-y-3">
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
      >
        {pending ? "Signing in…" : `Sign in as ${email}`}
      </button>
      <p role="alert" className="text-sm text-red-700 empty:hidden dark:text-red-300">
        {state.status === "error" ? state.message : null}
      </p>
    </form>
  );
}
