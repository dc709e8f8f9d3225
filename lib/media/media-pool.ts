// The one pool of media work per instance: at most `concurrency` tasks (an
// upload's check by sharp or mediabunny, an FFmpeg still or frame) at once,
// the rest waiting in a bounded queue for a bounded time. A full queue or a
// wait past its deadline is "busy": the caller is asked to come back, and
// nothing is said about its file. Every piece of media work takes a slot of
// mediaPool() first.
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";

/** Seconds a client is asked to wait when media work is busy: about what a queue of uploads takes to drain. */
export const MEDIA_BUSY_RETRY_AFTER_SECONDS = 10;

export const mediaBusy = (retryAfterSeconds = MEDIA_BUSY_RETRY_AFTER_SECONDS) =>
  new AppError("media_busy", "The server is busy processing other files. Please try again in a few seconds.", undefined, {
    "Retry-After": String(retryAfterSeconds),
  });

export const isMediaBusy = (error: unknown) => error instanceof AppError && error.code === "media_busy";

export type MediaPoolOptions = {
  /** Tasks running at once. */
  concurrency: number;
  /** Tasks waiting for a slot; one more is refused as busy at once. */
  maxQueued: number;
  /** How long a task may wait for a slot before it is refused as busy. */
  queueTimeoutMs: number;
};

export type MediaPool = {
  /** Runs `task` in a slot; throws the busy error when none comes in time. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /** Running and waiting now, and the most that ever ran at once. */
  stats(): { running: number; queued: number; peakRunning: number };
};

export function createMediaPool({ concurrency, maxQueued, queueTimeoutMs }: MediaPoolOptions): MediaPool {
  let running = 0;
  let peakRunning = 0;
  const queue: { start: () => void }[] = [];

  const release = () => {
    running--;
    queue.shift()?.start();
  };

  const acquire = (): Promise<void> => {
    if (running < concurrency && queue.length === 0) {
      running++;
      peakRunning = Math.max(peakRunning, running);
      return Promise.resolve();
    }
    if (queue.length >= maxQueued) return Promise.reject(mediaBusy());
    return new Promise<void>((resolve, reject) => {
      const waiter = {
        start: () => {
          clearTimeout(timer);
          running++;
          peakRunning = Math.max(peakRunning, running);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        reject(mediaBusy());
      }, queueTimeoutMs);
      queue.push(waiter);
    });
  };

  return {
    async run(task) {
      await acquire();
      try {
        return await task();
      } finally {
        release();
      }
    },
    stats: () => ({ running, queued: queue.length, peakRunning }),
  };
}

/** The instance's one media pool (kept on globalThis: every bundle that loads this module shares it). */
export function mediaPool(): MediaPool {
  const holder = globalThis as { framehookMediaPool?: MediaPool };
  return (holder.framehookMediaPool ??= createMediaPool({
    concurrency: env.MEDIA_CONCURRENCY,
    maxQueued: env.MEDIA_CONCURRENCY * 8,
    queueTimeoutMs: env.MEDIA_QUEUE_TIMEOUT_MS,
  }));
}
