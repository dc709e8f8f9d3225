"use client";
// The comparison's columns, one per model: each turns Ready on the live
// stream (SWR reads the batch again when one of its videos changes; polling
// while the stream is down), with its model, the time it took and its credits.
// "Play all from the start" rewinds and plays every Ready video together;
// "Mark as my pick" is kept with the batch; "Share" makes its public link.
import Link from "next/link";
import { useState, useTransition } from "react";
import useSWR from "swr";
import { pickBatchVideoAction } from "@/app/actions";
import { fetchJson, POLL_INTERVAL_MS, SAFETY_NET_POLL_MS } from "@/app/_components/client-data";
import { formatElapsed } from "@/app/_components/format";
import { describeCharge } from "@/app/_components/generation-charge";
import { PlayAllButton } from "@/app/_components/play-all-button";
import { BatchShareControl, isBatchShareable } from "@/app/_components/share-control";
import { StateBadge } from "@/app/_components/state-badge";
import { useGenerationEvents } from "@/app/_components/use-generation-events";
import { usePlayTogether } from "@/app/_components/use-play-together";
import type { Batch } from "@/lib/batches/queries";
import { playbackUrl } from "@/lib/copies/media-copy";
import type { Generation } from "@/lib/generations/generation";
import { findModel } from "@/lib/models/catalog";

/** Still on its way to an outcome (the client's copy of the states' rule: lib/generations/generation.ts reads the server's env). */
const isTerminal = (state: Generation["state"]) => state !== "SUBMITTING" && state !== "PENDING";

const COLUMNS: Record<number, string> = { 1: "sm:grid-cols-1", 2: "sm:grid-cols-2", 3: "sm:grid-cols-2 lg:grid-cols-3", 4: "sm:grid-cols-2 xl:grid-cols-4" };

export function ComparisonView({ initialBatch }: { initialBatch: Batch }) {
  const key = `/api/batches/${initialBatch.id}`;
  const pending = (batch: Batch | undefined) => batch?.generations.some((g) => !isTerminal(g.state)) ?? false;
  const status = useGenerationEvents({
    onChange: (change) => {
      if (batch.generations.some((g) => g.id === change.id)) void mutate();
    },
    onResync: () => void mutate(),
  });
  const { data, mutate } = useSWR<Batch>(key, fetchJson, {
    fallbackData: initialBatch,
    refreshInterval: (latest) => (pending(latest) ? (status === "live" ? SAFETY_NET_POLL_MS : POLL_INTERVAL_MS) : 0),
  });
  const batch = data ?? initialBatch;
  const players = usePlayTogether();
  const [message, setMessage] = useState("");
  const [picking, startPicking] = useTransition();
  const ready = batch.generations.filter((g) => g.state === "SUCCESS" && playbackUrl(g));

  const playAll = async () => {
    const playing = await players.playAll(ready.map((g) => g.id));
    setMessage(`Playing ${playing} videos from the start.`);
  };

  const pick = (id: string | null) =>
    startPicking(async () => {
      const answer = await pickBatchVideoAction(batch.id, id);
      setMessage(answer.message);
      await mutate();
    });

  return (
    <section aria-labelledby="comparison-title" className="space-y-4">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="min-w-0">
          <h1 id="comparison-title" className="text-lg font-semibold">
            Comparison · {batch.generations.length} models
          </h1>
          <p className="mt-1 line-clamp-3 text-sm text-zinc-700 dark:text-zinc-300">{batch.prompt}</p>
        </div>
        <PlayAllButton onPlay={() => void playAll()} disabled={ready.length < 2} />
      </div>
      {isBatchShareable(batch) || batch.share ? (
        <div className="max-w-xl">
          <BatchShareControl batch={batch} onAnnounce={setMessage} />
        </div>
      ) : null}
      <p role="status" aria-live="polite" data-testid="compare-status" className="text-sm text-emerald-700 dark:text-emerald-400">
        {message}
      </p>
      <ol className={`grid grid-cols-1 gap-4 ${COLUMNS[batch.generations.length] ?? COLUMNS[4]}`}>
        {batch.generations.map((g) => (
          <Column
            key={g.id}
            generation={g}
            picked={batch.pickId === g.id}
            busy={picking}
            onPick={() => pick(batch.pickId === g.id ? null : g.id)}
            register={players.register(g.id)}
          />
        ))}
      </ol>
    </section>
  );
}

function Column({
  generation: g,
  picked,
  busy,
  onPick,
  register,
}: {
  generation: Generation;
  picked: boolean;
  busy: boolean;
  onPick: () => void;
  register: (video: HTMLVideoElement | null) => void;
}) {
  const label = findModel(g.model)?.label ?? g.model;
  const url = g.state === "SUCCESS" ? playbackUrl(g) : undefined;
  const took = g.completedAt ? formatElapsed(new Date(g.completedAt).getTime() - new Date(g.createdAt).getTime()) : null;
  const charge = describeCharge(g);
  return (
    <li
      aria-label={label}
      data-state={g.state}
      className={`flex flex-col gap-2 rounded-2xl bg-white p-3 shadow-sm ring-1 dark:bg-zinc-900 ${picked ? "ring-2 ring-brand-600" : "ring-zinc-200 dark:ring-zinc-800"}`}
    >
      <div className="flex items-center justify-between gap-2">
        <h2 className="truncate text-sm font-semibold">{label}</h2>
        <StateBadge state={g.state} overdue={g.overdue} />
      </div>
      <div className="aspect-video overflow-hidden rounded-lg bg-zinc-100 dark:bg-zinc-800">
        {url ? (
          <video ref={register} src={url} controls muted playsInline preload="metadata" className="size-full object-contain" aria-label={`${label} result`} />
        ) : (
          <div className="flex size-full items-center justify-center p-3 text-center text-sm text-zinc-600 dark:text-zinc-400">
            {g.error ? g.error.message : isTerminal(g.state) ? "No video" : "Generating…"}
          </div>
        )}
      </div>
      <dl className="grid grid-cols-2 gap-x-3 text-xs text-zinc-600 dark:text-zinc-400">
        <dt>Time taken</dt>
        <dd className="text-right tabular-nums">{took ?? "—"}</dd>
        <dt>Credits</dt>
        <dd className="text-right">{charge ?? "—"}</dd>
      </dl>
      <div className="mt-auto flex items-center justify-between gap-2 text-sm">
        <Link href={`/generations/${g.id}`} className="font-medium text-brand-700 underline hover:no-underline dark:text-brand-400">
          Details
        </Link>
        {g.state === "SUCCESS" ? (
          <button
            type="button"
            aria-pressed={picked}
            disabled={busy}
            onClick={onPick}
            className="rounded-lg px-3 py-1.5 font-medium ring-1 ring-zinc-300 hover:bg-zinc-100 aria-pressed:bg-brand-600 aria-pressed:text-white aria-pressed:ring-brand-600 disabled:opacity-60 dark:ring-zinc-700 dark:hover:bg-zinc-800"
          >
            {picked ? "My pick ✓" : "Mark as my pick"}
          </button>
        ) : null}
      </div>
    </li>
  );
}
