// 11. Compare submit: one four-model comparison (POST /api/batches: one
// transaction holds all four videos, then the four gateway submits go out at
// once) against the same four videos submitted one after another
// (POST /api/generations × 4, each its own hold and gateway submit), in the
// same rounds, by one owner. The simulator answers each submit after a fixed
// latency, as a remote gateway would, and keeps the tasks PENDING without a
// callback: the figures are the submit paths alone.
import { uniqueMarker } from "../../tests/support/simulator-control";
import { image, clip } from "../../tests/support/media-fixtures";
import { benchViewerCookie, type BenchDb } from "../db";
import type { Section } from "../report";
import type { Stack } from "../stack";
import { median } from "../stats";

const ROUNDS = Number(process.env.BENCH_COMPARE_ROUNDS ?? 10);
/** What the simulator waits before answering a submit: a remote gateway's answer time. */
const GATEWAY_LATENCY_MS = 150;
/** The issue's target: the batch's submit time at most this × the four singles' sum. */
const TARGET = 1.2;
// A viewer id is 22 URL-safe characters (lib/viewer/viewer-cookie.ts): any other is replaced by a new visitor's.
const OWNER = "bench-compare-owner-01";
const FRAMES = "alpha-2.5-first-last-frame-480p";
const REFERENCE = "delta-h3/reference-to-video";

export async function benchCompareSubmit(stack: Stack, db: BenchDb): Promise<Section> {
  const marker = uniqueMarker("bench-compare");
  await stack.simulator.scenario({ match: marker, callback: { mode: "drop" }, pendingMs: 3_600_000, submitLatencyMs: GATEWAY_LATENCY_MS });
  const cookie = benchViewerCookie(stack.webhookSecret, OWNER);
  const upload = async (model: string, field: string, contentType: string, body: Buffer) => {
    const response = await fetch(new URL(`/api/uploads?model=${encodeURIComponent(model)}&field=${field}`, stack.appUrl), {
      method: "POST",
      headers: { Cookie: cookie, "Content-Type": contentType },
      body: new Uint8Array(body),
    });
    if (response.status !== 201) throw new Error(`upload to ${model} ${field}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  };
  const first = await upload(FRAMES, "first_frame_url", "image/png", image({ width: 640, height: 480 }));
  const last = await upload(FRAMES, "last_frame_url", "image/png", image({ width: 640, height: 480 }));
  const reference = await upload(REFERENCE, "reference_video_urls", "video/mp4", clip({ seconds: 2 }));
  const videos = [
    { model: "alpha-2.5-text-to-video-480p", input: { duration: 5 } },
    { model: "alpha-2.5-text-to-video", input: { duration: 5 } },
    { model: FRAMES, input: { duration: 5, first_frame_url: first, last_frame_url: last } },
    { model: REFERENCE, input: { duration: 5, reference_video_urls: [reference] } },
  ];
  const post = async (path: string, body: unknown) => {
    const started = performance.now();
    const response = await fetch(new URL(path, stack.appUrl), { method: "POST", headers: { Cookie: cookie, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${text}`);
    return performance.now() - started;
  };
  const batch = (round: string) => post("/api/batches", { prompt: `compare benchmark ${round} ${marker}`, videos });
  const singles = async (round: string) => {
    let sum = 0;
    for (const video of videos) sum += await post("/api/generations", { model: video.model, input: { ...video.input, prompt: `compare benchmark ${round} ${marker}` } });
    return sum;
  };

  // Warm-up, not reported: the routes' first requests, the owner's welcome grant, JIT.
  await batch("warm");
  await singles("warm");
  const rounds: { batch: number; singles: number }[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // In turns, so that a shared machine's drift hits both alike.
    if (round % 2) rounds.push({ batch: await batch(`b${round}`), singles: await singles(`s${round}`) });
    else {
      const s = await singles(`s${round}`);
      rounds.push({ singles: s, batch: await batch(`b${round}`) });
    }
  }
  const ratios = rounds.map((r) => r.batch / r.singles);
  const ratio = median(ratios);
  const batchMs = median(rounds.map((r) => r.batch));
  const singlesMs = median(rounds.map((r) => r.singles));
  const held = await db.creditEntry.count({ where: { ownerId: OWNER, kind: "HOLD" } });
  const generations = await db.generation.count({ where: { ownerId: OWNER } });
  const expected = (ROUNDS + 1) * 8;

  return {
    title: "11. Compare submit",
    setup: `${ROUNDS} rounds by one owner, each of one \`POST /api/batches\` of four models (${videos.map((v) => v.model).join(", ")}; 5 s each, the frames and the reference clip uploaded once beforehand) and the same four videos as four \`POST /api/generations\` one after another, in turns (the batch first in odd rounds). The simulator answers every submit after ${GATEWAY_LATENCY_MS} ms and keeps the task PENDING without a callback. The batch's time is its one request; the singles' is the sum of their four. A warm-up of each is not counted.`,
    figures: [
      { label: "Four-model batch, submit time (median)", value: Math.round(batchMs), unit: "ms", baseline: { label: "four single submits, summed", value: Math.round(singlesMs) } },
      { label: "Batch ÷ four singles, median of the rounds", value: Number(ratio.toFixed(3)), unit: "×" },
      { label: "Holds written", value: held, unit: "", baseline: { label: "videos submitted", value: expected } },
    ],
    targets: [
      { label: `batch ≤ ${TARGET} × the four singles' sum`, met: ratio <= TARGET, detail: `${ratio.toFixed(2)}× (rounds ${ratios.map((r) => r.toFixed(2)).join(", ")}; medians ${Math.round(batchMs)} vs ${Math.round(singlesMs)} ms)` },
      { label: "one hold per video", met: held === expected && generations === expected, detail: `${held} holds, ${generations} generations for ${expected} videos` },
    ],
    notes: [
      `The batch's four gateway submits go out at once after its one transaction, so it waits for the gateway about once (${GATEWAY_LATENCY_MS} ms) where the singles wait four times; its transaction writes the batch, four generations and four holds under one credit lock.`,
    ],
  };
}
