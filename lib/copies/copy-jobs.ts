// The copy jobs: one MediaCopy row per result file of a SUCCESS generation,
// claimed with a conditional-update lease as polling is, so that however many
// callbacks, readers, cron runs or instances kick them, each file is copied
// once; a crash mid-copy leaves a lease that expires, and the next kick
// resumes. The rows are the truth: kicks are only hints to look at them.
import "server-only";
import { isUniqueViolation } from "@/lib/database/errors";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { isHttpUrl, MAX_RESULT_URLS } from "@/lib/gateway/task";
import type { MediaCopy } from "@/lib/generated/prisma/client";
import { isDraining } from "@/lib/lifecycle/drain";
import { safeJsonParse } from "@/lib/http/json";
import { runCopyAttempt } from "./copy-attempt";
import { getMediaStorage, mediaStorageEnabled, type MediaStorage } from "@/lib/storage/storage";

const BATCH = 10;
/** Gateways keep results 14 days at most: older SUCCESS rows without copies are not worth a job. */
const BACKFILL_WINDOW_MS = 14 * 86_400_000;

/** At most this many copies run at once from requestMediaCopies in one process; the others wait, PENDING, for a slot. */
const CONCURRENT_COPIES = 4;
/** At most this many of them from one result host: however slow a host is, another host's copy always finds a slot. */
export const COPIES_PER_HOST = CONCURRENT_COPIES - 1;
/** Past this many jobs waiting for a slot, more are left to the cron and readers: their rows keep them. */
const WAITING_MAX = 1_000;
/** Generations per round of the queue: one query finds their missing jobs, one creates them, one finds the due ones. */
const ROUND = 100;

const wanted = new Set<string>();
let pumping = false;

/**
 * Asks for the copy jobs of these SUCCESS generations to be created and run,
 * in the background. Asks made while a round is under way wait for the next
 * one, so a burst of callbacks costs a few batched queries, not a handful
 * each. Rounds never wait for a download slot: every SUCCESS gets its jobs at
 * once, however busy (or slow) the running copies are. The rows are the
 * truth: whatever this process does not get to, the cron and readers find.
 */
export function requestMediaCopies(generationIds: readonly string[]): void {
  // A draining instance starts nothing: the rows wait for another instance's runners.
  if (!mediaStorageEnabled() || generationIds.length === 0 || isDraining()) return;
  for (const id of generationIds) wanted.add(id);
  if (!pumping) void pump();
}

async function pump(): Promise<void> {
  pumping = true;
  try {
    while (wanted.size > 0) {
      const ids = [...wanted].slice(0, ROUND);
      for (const id of ids) wanted.delete(id);
      try {
        await scheduleMediaCopies({ generationIds: ids });
        const storage = await getMediaStorage();
        if (!storage) return;
        for (const job of await findDueJobs({ generationIds: ids, take: ROUND })) runInSlot(job, storage);
      } catch (error) {
        console.error("[framehook] media copies could not start", error);
      }
    }
  } finally {
    pumping = false;
  }
}

// This process's download slots, shared between result hosts: a waiting job
// starts, oldest first, once a slot is free and its host runs fewer than
// COPIES_PER_HOST copies here. A job waiting here is still a due PENDING row:
// another runner (the cron, an instance) may take it first, and then its
// claim here is a no-op.
const waiting: { job: MediaCopy; storage: MediaStorage }[] = [];
const inSlotsOrWaiting = new Set<string>();
const runningPerHost = new Map<string, number>();
let running = 0;

function runInSlot(job: MediaCopy, storage: MediaStorage): void {
  if (inSlotsOrWaiting.has(job.id) || waiting.length >= WAITING_MAX) return;
  inSlotsOrWaiting.add(job.id);
  waiting.push({ job, storage });
  startWaiting();
}

function startWaiting(): void {
  while (running < CONCURRENT_COPIES && !isDraining()) {
    const next = nextWithRoom(waiting, runningPerHost);
    if (next < 0) return;
    const { job, storage } = waiting.splice(next, 1)[0]!;
    const host = copyHost(job);
    running++;
    runningPerHost.set(host, (runningPerHost.get(host) ?? 0) + 1);
    void runJob(job, storage).finally(() => {
      running--;
      const left = runningPerHost.get(host)! - 1;
      if (left > 0) runningPerHost.set(host, left);
      else runningPerHost.delete(host);
      inSlotsOrWaiting.delete(job.id);
      startWaiting();
    });
  }
}

/** The index of the oldest waiting job whose host has room for one more copy, or -1. */
export function nextWithRoom(queue: readonly { job: Pick<MediaCopy, "sourceUrl" | "state"> }[], runningByHost: ReadonlyMap<string, number>): number {
  return queue.findIndex(({ job }) => (runningByHost.get(copyHost(job)) ?? 0) < COPIES_PER_HOST);
}

/** The host a copy downloads from (a deletion, or a URL that does not parse, counts as its own host: ""). */
export function copyHost(job: Pick<MediaCopy, "sourceUrl" | "state">): string {
  if (job.state === "DELETING") return "";
  try {
    return new URL(job.sourceUrl).host.toLowerCase();
  } catch {
    return "";
  }
}

/** An attempt that cannot even record its failure (the database locked, gone) leaves the job due for the next runner. */
function runJob(job: MediaCopy, storage: MediaStorage): Promise<boolean> {
  return runCopyAttempt(job, storage).catch((error: unknown) => {
    console.error(`[framehook] media job ${job.id} could not run`, error);
    return false;
  });
}

/**
 * Makes sure every SUCCESS generation (of `generationIds`, or recent ones)
 * has its copy jobs. Jobs are derived from SUCCESS rows, so a crash between
 * the transition and this call loses nothing: the next caller creates them.
 */
export async function scheduleMediaCopies({ generationIds }: { generationIds?: string[] } = {}): Promise<number> {
  if (!mediaStorageEnabled()) return 0;
  const missing = await prisma.generation.findMany({
    where: {
      state: "SUCCESS",
      mediaCopies: { none: {} },
      ...(generationIds ? { id: { in: generationIds } } : { createdAt: { gt: new Date(Date.now() - BACKFILL_WINDOW_MS) } }),
    },
    select: { id: true, resultUrls: true },
    take: 100,
  });
  const jobs = missing.flatMap((generation) =>
    parseUrls(generation.resultUrls).map((sourceUrl, position) => ({ generationId: generation.id, position, sourceUrl, storageKey: `generations/${generation.id}/${position}` })),
  );
  if (jobs.length === 0) return 0;
  try {
    return (await prisma.mediaCopy.createMany({ data: jobs })).count;
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
  // Another scheduler (a reader, the cron, an instance) created some of them
  // meanwhile: the unique (generationId, position) lets one row through each.
  let created = 0;
  for (const data of jobs) {
    const row = await prisma.mediaCopy.create({ data }).catch((error: unknown) => {
      if (isUniqueViolation(error)) return null;
      throw error;
    });
    if (row) created++;
  }
  return created;
}

/**
 * Runs the due jobs (all, or those of `generationIds`) this caller can lease,
 * and resolves when they are finished or after `budgetMs`, whichever comes
 * first, with how many it ran to the end. A job still running then goes on
 * under its lease and within its own deadline; jobs not yet due or leased
 * elsewhere wait for the next call.
 */
export async function runDueMediaJobs({ generationIds, budgetMs }: { generationIds?: string[]; budgetMs?: number } = {}): Promise<{
  ran: number;
  stillRunning: number;
}> {
  const storage = await getMediaStorage();
  if (!storage || isDraining()) return { ran: 0, stillRunning: 0 };
  const due = await findDueJobs({ generationIds, take: BATCH });
  let ran = 0;
  let settled = 0;
  const all = Promise.all(
    due.map((job) =>
      runJob(job, storage).then((claimed) => {
        settled++;
        if (claimed) ran++;
      }),
    ),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  const budget = budgetMs === undefined ? null : new Promise<void>((resolve) => (timer = setTimeout(resolve, budgetMs)));
  await (budget ? Promise.race([all, budget]) : all);
  clearTimeout(timer);
  return { ran, stillRunning: due.length - settled };
}

/** Jobs whose time has come and whose lease (if any) has lapsed, oldest first. */
function findDueJobs({ generationIds, take }: { generationIds?: string[]; take: number }): Promise<MediaCopy[]> {
  const now = new Date();
  return prisma.mediaCopy.findMany({
    where: {
      state: { in: ["PENDING", "COPYING", "DELETING"] },
      nextRunAt: { lte: now },
      OR: [{ leaseUntil: null }, { leaseUntil: { lt: now } }],
      ...(generationIds ? { generationId: { in: generationIds } } : {}),
    },
    orderBy: { nextRunAt: "asc" },
    take,
  });
}

/** Retention: DONE copies older than MEDIA_RETENTION_DAYS become deletion jobs. */
export async function expireStoredMedia(): Promise<number> {
  if (!env.MEDIA_RETENTION_DAYS || !mediaStorageEnabled()) return 0;
  const cutoff = new Date(Date.now() - env.MEDIA_RETENTION_DAYS * 86_400_000);
  const { count } = await prisma.mediaCopy.updateMany({
    where: { state: "DONE", completedAt: { lt: cutoff } },
    data: { state: "DELETING", nextRunAt: new Date(), leaseUntil: null },
  });
  return count;
}

/** The URLs to copy: http(s) only, and no more than a snapshot keeps (rows written before that bound may hold more). */
function parseUrls(text: string): string[] {
  const value = safeJsonParse(text);
  return Array.isArray(value) ? value.filter((u): u is string => typeof u === "string" && isHttpUrl(u)).slice(0, MAX_RESULT_URLS) : [];
}
