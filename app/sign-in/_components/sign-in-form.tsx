"use client";
// Email link first (it signs up too), then a passkey for those who added one,
// then the OAuth providers the server has keys for.
import { useActionState, useState } from "react";
import { AFTER_SIGN_IN, authClient } from "@/lib/auth/client";
import { requestSignInLink, type SignInLinkState } from "../actions";

const initial: SignInLinkState = { status: "idle" };
const button = "w-full rounded-lg px-4 py-2 text-sm font-semibold focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60";
const PROVIDER_LABELS = { github: "GitHub", google: "Google" } as const;

export function SignInForm({ providers, devMailbox }: { providers: readonly ("github" | "google")[]; devMailbox: boolean }) {
  const [state, action, pending] = useActionState(requestSignInLink, initial);
  const [passkeyError, setPasskeyError] = useState<string | null>(null);
  const [passkeyPending, setPasskeyPending] = useState(false);

  async function signInWithPasskey() {
    setPasskeyError(null);
    setPasskeyPending(true);
    const { error } = await authClient.signIn.passkey();
    setPasskeyPending(false);
    if (error) setPasskeyError("No passkey signed you in. Use an email link, then add a passkey on your account page.");
    else window.location.assign(AFTER_SIGN_IN);
  }

  if (state.status === "sent") {
    return (
      <div role="status" className="space-y-2">
        <h2 className="text-base font-semibold">Check your email</h2>
        <p className="text-sm text-zinc-700 dark:text-zinc-300">
          A sign-in link is on its way to <strong>{state.email}</strong>. It works once, within 15 minutes.
        </p>
        {devMailbox ? (
          <p className="text-sm text-zinc-700 dark:text-zinc-300">
            No mail server is set up, so it went to the{" "}
            <a href="/dev/mailbox" className="font-medium text-brand-700 underline dark:text-brand-400">
              development mailbox
            </a>{" "}
            (and the terminal running <code>npm run dev</code>).
          </p>
        ) : null}
      </div>
    );
  }

  return (
    <div className="space-y-6">
      <form action={action} className="space-y-3" noValidate>
        <label htmlFor="sign-in-email" className="block text-sm font-medium">
          Email
        </label>
        <input
          id="sign-in-email"
          name="email"
          type="email"
          required
          autoComplete="email webauthn"
          defaultValue={state.status === "error" ? state.email : undefined}
          aria-invalid={state.status === "error" || undefined}
          aria-describedby="sign-in-email-error"
          className="w-full rounded-lg border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700"
        />
        <p id="sign-in-email-error" role="alert" className="min-h-5 text-sm text-red-700 dark:text-red-300">
          {state.status === "error" ? state.message : null}
        </p>
        <button type="submit" disabled={pending} className={`${button} bg-brand-600 text-white hover:bg-brand-700`}>
          {pending ? "Sending…" : "Email me a sign-in link"}
        </button>
      </form>
      <div className="space-y-2 border-t border-zinc-200 pt-4 dark:border-zinc-800">
        <button
          type="button"
          onClick={signInWithPasskey}
          disabled={passkeyPending}
          className={`${button} bg-white text-zinc-900 ring-1 ring-zinc-300 hover:bg-zinc-50 dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700`}
        >
          Sign in with a passkey
        </button>
        <p role="alert" className="text-sm text-red-700 empty:hidden dark:text-red-300">
          {passkeyError}
        </p>
        {providers.map((provider) => (
          <button
            key={provider}
            type="button"
            onClick={() => authClient.signIn.social({ provider, callbackURL: AFTER_SIGN_IN })}
            className={`${button} bg-white text-zinc-900 ring-1 ring-zinc-300 hover:bg-zinc-50 dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700`}
          >
            Continue with {PROVIDER_LABELS[provider]}
          </button>
        ))}
      </div>
    </div>
  );
}
