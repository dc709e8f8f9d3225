// Bounds one download in time whatever the other end does: no data for a
// while (stalled), a rate that stays under a floor over a window (too slow),
// or an attempt past its deadline. An idle timeout alone lets a host that
// sends a few bytes a second hold a copy, and its lease, for days.
import { DownloadError } from "./safe-download";

export type TransferLimits = {
  /** The slowest rate accepted, averaged over `windowMs`; 0: no floor. */
  minBytesPerSecond: number;
  windowMs: number;
  /** The longest an attempt may take, from its first request to its last byte. */
  deadlineMs: number;
};

/**
 * Watches `bytes()` until the returned function is called; when the transfer
 * breaks a limit, aborts `abort` with a DownloadError saying which (retryable:
 * the host may be faster later). The first check comes one window in, so a
 * slow start (headers, a redirect) counts against the rate as a slow body does.
 */
export function guardTransfer({ limits, bytes, abort }: { limits: TransferLimits; bytes: () => number; abort: AbortController }): () => void {
  const started = Date.now();
  const samples: { at: number; bytes: number }[] = [{ at: started, bytes: 0 }];
  const cut = (message: string) => {
    stop();
    abort.abort(new DownloadError(`${message} (${formatBytes(bytes())} copied).`, false));
  };

  const tick = setInterval(
    () => {
      const now = Date.now();
      samples.push({ at: now, bytes: bytes() });
      // The newest sample at least a window old starts the window.
      while (samples.length > 1 && now - samples[1]!.at >= limits.windowMs) samples.shift();
      const first = samples[0]!;
      if (now - first.at < limits.windowMs) return;
      const received = bytes() - first.bytes;
      const seconds = (now - first.at) / 1000;
      if (received === 0) return cut(`The download stalled: no data for ${formatSeconds(seconds)}`);
      const rate = received / seconds;
      if (rate < limits.minBytesPerSecond) {
        cut(`The download was too slow: ${formatRate(rate)} under the ${formatRate(limits.minBytesPerSecond)} floor over ${formatSeconds(seconds)}`);
      }
    },
    Math.max(50, limits.windowMs / 4),
  );
  const deadline = setTimeout(() => cut(`The download took too long: not finished within the ${formatSeconds(limits.deadlineMs / 1000)} deadline`), limits.deadlineMs);

  function stop() {
    clearInterval(tick);
    clearTimeout(deadline);
  }
  return stop;
}

const formatRate = (bytesPerSecond: number) => `${Math.round(bytesPerSecond / 1024)} KB/s`;

const formatSeconds = (seconds: number) => (seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${Math.round(seconds)} s`);

export function formatBytes(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GB`;
}
