"use client";
// Passkeys: add one (the browser's own dialog), rename, remove. Better Auth's
// endpoints act on the signed-in account's passkeys only.
import { useRouter } from "next/navigation";
import { useState } from "react";
import { formatTimestamp } from "@/app/_components/format";
import { authClient } from "@/lib/auth/client";

export type PasskeyRow = { id: string; name: string | null; createdAt: string | null };

const small = "rounded px-2 py-1 text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600 dark:text-brand-400";

export function Passkeys({ passkeys }: { passkeys: PasskeyRow[] }) {
  const router = useRouter();
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function run(action: () => Promise<{ error: { message?: string } | null }>, failure: string) {
    setBusy(true);
    setMessage(null);
    const { error } = await action();
    setBusy(false);
    if (error) setMessage(`${failure}${error.message ? `: ${error.message}` : "."}`);
    router.refresh();
  }

  return (
    <div className="space-y-3">
      {passkeys.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">No passkeys yet. Add one to sign in without an email next time.</p>
      ) : (
        <ul className="divide-y divide-zinc-200 dark:divide-zinc-800">
          {passkeys.map((passkey) => (
            <li key={passkey.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <span className="text-sm">
                <span className="font-medium">{passkey.name || "Passkey"}</span>
                {passkey.createdAt ? <span className="text-zinc-500"> · added {formatTimestamp(new Date(passkey.createdAt).toISOString())}</span> : null}
              </span>
              <span className="flex gap-1">
                <button
                  type="button"
                  className={small}
                  disabled={busy}
                  aria-label={`Rename ${passkey.name || "passkey"}`}
                  onClick={() => {
                    const name = window.prompt("Name this passkey", passkey.name ?? "")?.trim();
                    if (name) void run(() => authClient.passkey.updatePasskey({ id: passkey.id, name }), "Could not rename it");
                  }}
                >
                  Rename
                </button>
                <button
                  type="button"
                  className={small}
                  disabled={busy}
                  aria-label={`Remove ${passkey.name || "passkey"}`}
                  onClick={() => void run(() => authClient.passkey.deletePasskey({ id: passkey.id }), "Could not remove it")}
                >
                  Remove
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      <button
        type="button"
        disabled={busy}
        onClick={() => void run(async () => (await authClient.passkey.addPasskey({ name: defaultName() })) ?? { error: null }, "No passkey was added")}
        className="rounded-lg bg-white px-4 py-2 text-sm font-semibold text-zinc-900 ring-1 ring-zinc-300 hover:bg-zinc-50 disabled:opacity-60 dark:bg-zinc-900 dark:text-zinc-100 dark:ring-zinc-700"
      >
        Add a passkey
      </button>
      <p role="status" aria-live="polite" className="text-sm text-red-700 empty:hidden dark:text-red-300">
        {message}
      </p>
    </div>
  );
}

/** "Chrome on macOS"-style, from the browser's own description; the person can rename it. */
function defaultName(): string {
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform || navigator.platform || "this device";
  return `Passkey on ${platform}`;
}
