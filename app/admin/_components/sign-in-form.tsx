"use client";
import { useActionState } from "react";
import { signInAdmin, type AdminSignInState } from "../actions";

const initial: AdminSignInState = { status: "idle" };

export function AdminSignInForm() {
  const [state, action, pending] = useActionState(signInAdmin, initial);
  return (
    <form action={action} className="max-w-sm space-y-3 rounded-2xl bg-white p-6 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
      <label htmlFor="admin-password" className="block text-sm font-medium">
        Admin password
      </label>
      <input
        id="admin-password"
        name="password"
        type="password"
        required
        autoComplete="current-password"
        className="w-full rounded-lg border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700"
      />
      <button
        type="submit"
        disabled={pending}
        className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700 disabled:opacity-60"
      >
        Sign in
      </button>
      <p role="status" aria-live="polite" className="text-sm text-red-700 dark:text-red-300">
        {state.status === "error" ? state.message : null}
      </p>
    </form>
  );
}
