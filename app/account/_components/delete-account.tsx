"use client";
import { useActionState } from "react";
import { deleteOwnAccount, type DeleteAccountState } from "../actions";

const initial: DeleteAccountState = { status: "idle" };

export function DeleteAccount({ email }: { email: string }) {
  const [state, action, pending] = useActionState(deleteOwnAccount, initial);
  return (
    <form action={action} className="space-y-3">
      <p className="text-sm text-zinc-700 dark:text-zinc-300">
        Deletes your account, every video you made and every upload, with their stored files. It cannot be undone.
      </p>
      <label htmlFor="confirm-email" className="block text-sm font-medium">
        Type <strong>{email}</strong> to confirm
      </label>
      <input
        id="confirm-email"
        name="confirmEmail"
        type="email"
        autoComplete="off"
        required
        aria-describedby="delete-account-error"
        className="block w-full max-w-sm rounded-lg border border-zinc-300 bg-transparent px-3 py-2 text-sm dark:border-zinc-700"
      />
      <p id="delete-account-error" role="alert" className="text-sm text-red-700 empty:hidden dark:text-red-300">
        {state.status === "error" ? state.message : null}
      </p>
      <button
        type="submit"
        disabled={pending}
        className="rounded-lg bg-red-600 px-4 py-2 text-sm font-semibold text-white hover:bg-red-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-600 disabled:opacity-60"
      >
        {pending ? "Deleting…" : "Delete my account"}
      </button>
    </form>
  );
}
