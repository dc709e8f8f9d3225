// Resident memory from Linux /proc, for the benchmarks that watch the app's.
import fs from "node:fs";

/** Resident memory of a process and its descendants, in bytes: the FFmpeg processes (ffmpeg, ffprobe) apart from the rest. */
export function memoryOf(pid: number): { app: number; tools: number } {
  const total = { app: 0, tools: 0 };
  const visit = (p: number) => {
    const kb = readProc(`/proc/${p}/status`)?.match(/^VmRSS:\s+(\d+) kB/m)?.[1];
    const tool = /^ff(mpeg|probe)$/.test((readProc(`/proc/${p}/comm`) ?? "").trim());
    if (kb) total[tool ? "tools" : "app"] += Number(kb) * 1024;
    for (const child of (readProc(`/proc/${p}/task/${p}/children`) ?? "").split(/\s+/).filter(Boolean)) visit(Number(child));
  };
  visit(pid);
  return total;
}

/** Resident memory of a process and all its descendants, FFmpeg included, in bytes. */
export function rssOf(pid: number): number {
  const { app, tools } = memoryOf(pid);
  return app + tools;
}

function readProc(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch {
    return null;
  }
}
