"use client";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useActionState, useEffect } from "react";
import { useSWRConfig } from "swr";
import { announceClaim, dropViewerCaches } from "@/app/_components/identity-watcher";
import { keepGuestWork, type ClaimState } from "./actions";

const initial: ClaimState = { status: "idle" };

export function ClaimForm() {
  const [state, action, pending] = useActionState(keepGuestWork, initial);
  const router = useRouter();
  const { mutate } = useSWRConfig();
  useEffect(() => {
    if (state.status !== "kept") return;
    // This browser's other tabs reload and show the kept videos; this one goes home,
    // dropping what it holds from before the claim (the header's credits and spend are the account's now).
    announceClaim();
    void dropViewerCaches(mutate);
    router.replace("/");
  }, [state.status, router, mutate]);
  return (
    <form action={action} className="flex flex-wrap items-center gap-3">
      <button
        type="submit"
        disabled={pending || state.status === "kept"}
        className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:opacity-60"
      >
        {pending || state.status === "kept" ? "Keeping…" : "Keep them"}
      </button>
      <Link href="/" className="rounded px-2 py-2 text-sm font-medium text-zinc-700 hover:underline dark:text-zinc-300">
        Not now
      </Link>
      <p role="alert" className="w-full text-sm text-red-700 empty:hidden dark:text-red-300">
        {state.status === "error" ? state.message : null}
      </p>
    </form>
  );
}
