// 10. The submit path with credit holds: POST /api/generations on the bench's
// app (credits on: each submission's hold is written in the insert's
// transaction, by a statement that sums the ledger) against a second
// `next start` of the same build, database and simulator with
// CREDITS_ENABLED=false (a plain insert, as before credits existed), in the
// same rounds. Many owners, as in production; SUBMIT_RATE_LIMIT=0 and a
// welcome grant that covers every hold (bench/stack.ts).
import { freePort } from "../../scripts/free-port";
import { uniqueMarker } from "../../tests/support/simulator-control";
import { runLoad, type LoadFigures } from "../cannon";
import { benchViewerCookie, type BenchDb } from "../db";
import type { Section } from "../report";
import type { Stack } from "../stack";
import { median } from "../stats";
import { describeCodes } from "./callback-receiver";

/** Enough to keep both apps busy; at 64 a loaded machine queues SQLite's transactions past Prisma's 5 s wait to start one. */
const CONNECTIONS = 32;
/** Per app per round; BENCH_SUBMITS=300 for a quicker look. */
const SUBMITS = Number(process.env.BENCH_SUBMITS ?? 1000);
/** Distinct owners per app, each with a cookie of its own; a submission's lock is its owner's, so they rarely meet. */
const OWNERS = 200;
/** Rounds of both loads; the target is the median of the rounds' ratios, each of two loads run back to back. */
const ROUNDS = 5;
/** The target: the submit path with holds at ≥ this share of its rate without. */
const RPS_TARGET = 0.8;
const MODEL = "alpha-2.5-text-to-video-480p";
/** What a 5 s 480p submission holds at the bench's pricing (the defaults: markup 1.5, a credit $0.10). */
const HOLD = 11;

type Round = { holds: LoadFigures; off: LoadFigures };

export async function benchSubmitHolds(stack: Stack, db: BenchDb): Promise<Section> {
  // The simulator keeps these tasks PENDING and sends no callback: the load is the submit path alone.
  const marker = uniqueMarker("bench-submit");
  await stack.simulator.scenario({ match: marker, callback: { mode: "drop" }, pendingMs: 3_600_000 });
  // A viewer id is 22 URL-safe characters (lib/viewer/viewer-cookie.ts): any other is replaced by a new visitor's.
  const owners = (label: string) => Array.from({ length: OWNERS }, (_, i) => `bench-submit-${label}-${String(i).padStart(7, "0")}`);
  const holdOwners = owners("h");
  const offOwners = owners("o");
  const submits = (appUrl: string, who: string[], count: number, round: string) =>
    runLoad(
      {
        url: `${appUrl}/api/generations`,
        connections: CONNECTIONS,
        amount: count,
        method: "POST",
        items: Array.from({ length: count }, (_, i) => ({
          path: "/api/generations",
          headers: { "content-type": "application/json", cookie: benchViewerCookie(stack.webhookSecret, who[i % who.length]) },
          body: JSON.stringify({ model: MODEL, input: { prompt: `submit benchmark ${round} ${i} ${marker}`, duration: 5 } }),
        })),
      },
      { workDir: stack.workDir, timeoutMs: 300_000 },
    );

  const off = await stack.startApp({ port: await freePort(), env: { CREDITS_ENABLED: "false" }, log: "app-credits-off.log" });
  const rounds: Round[] = [];
  let warm: Round | undefined;
  try {
    // Warm-up, not reported: every owner's first submission (on the holds app, its welcome grant), JIT, pools.
    warm = { holds: await submits(stack.appUrl, holdOwners, OWNERS, "warm"), off: await submits(off.url, offOwners, OWNERS, "warm") };
    // Each round runs both, in turns (off first in odd rounds), so that drift of a shared machine hits both alike.
    for (let round = 1; round <= ROUNDS; round++) {
      const runHolds = () => submits(stack.appUrl, holdOwners, SUBMITS, `h${round}`);
      const runOff = () => submits(off.url, offOwners, SUBMITS, `o${round}`);
      if (round % 2) {
        const o = await runOff();
        rounds.push({ off: o, holds: await runHolds() });
      } else {
        const h = await runHolds();
        rounds.push({ holds: h, off: await runOff() });
      }
    }
  } finally {
    await off.stop();
  }

  const holds = medianOf(rounds.map((r) => r.holds));
  const without = medianOf(rounds.map((r) => r.off));
  // Paired: each round's two loads run back to back, so their ratio is what the machine's drift between rounds leaves alone.
  const ratios = rounds.map((r) => r.holds.rps / r.off.rps);
  const ratio = median(ratios);
  const ledger = await countLedger(db, holdOwners, offOwners);
  const accepted = (loads: LoadFigures[]) => loads.reduce((n, l) => n + (l.statusCodes["201"] ?? 0), 0);
  const acceptedHolds = accepted([warm!.holds, ...rounds.map((r) => r.holds)]);
  const acceptedOff = accepted([warm!.off, ...rounds.map((r) => r.off)]);
  const failures = [warm!, ...rounds].reduce((n, r) => n + r.holds.non2xx + r.holds.errors + r.off.non2xx + r.off.errors, 0);
  const codes: Record<string, number> = {};
  for (const l of [warm!, ...rounds].flatMap((r) => [r.holds, r.off])) for (const [code, n] of Object.entries(l.statusCodes)) codes[code] = (codes[code] ?? 0) + n;
  const perRound = (pick: (r: Round) => number) => rounds.map((r) => Math.round(pick(r)).toLocaleString("en-US")).join(", ");
  const label = "`CREDITS_ENABLED=false`, same load";
  const sqlite = stack.engine === "sqlite";

  return {
    title: "10. Submit with credit holds",
    setup: `${ROUNDS} rounds, each of ${SUBMITS.toLocaleString("en-US")} \`POST /api/generations\` (5 s of ${MODEL}, each with its own prompt) over ${CONNECTIONS} connections from ${OWNERS} owners (a cookie each, in turn) to the bench's app (credits on: every submission holds ${HOLD} credits) and as many to a second \`next start\` of the same build, database and simulator with \`CREDITS_ENABLED=false\` (no hold, no credit lock), from ${OWNERS} other owners; the two take turns in each round (off first in odd rounds). The simulator answers every submission and keeps the task PENDING without a callback, so the figures are the submit path alone: parse, the spending caps (off here, as by default), the insert (with holds: in one transaction with the hold, written by a statement that sums the ledger; on PostgreSQL after the owner's credit lock), the gateway's submit, the PENDING update. The target is the median of the rounds' ratios (each round's two loads run back to back, so a shared machine's drift between rounds cancels); the other figures are the rounds' medians (requests/s per round: with holds ${perRound((r) => r.holds.rps)}; without ${perRound((r) => r.off.rps)}). A warm-up of one submission per owner on each app (on the holds app, each owner's welcome grant) is not counted.`,
    figures: [
      { label: "Requests/s", value: holds.rps, unit: "req/s", baseline: { label, value: without.rps } },
      { label: "Requests/s with holds ÷ without, median of the rounds", value: Number(ratio.toFixed(3)), unit: "×" },
      { label: "Latency p50", value: holds.p50, unit: "ms", baseline: { label, value: without.p50 } },
      { label: "Latency p99", value: holds.p99, unit: "ms", baseline: { label, value: without.p99 } },
      { label: "Non-2xx, errors, timeouts", value: failures, unit: "", baseline: { label: "expected", value: 0 } },
      { label: "Holds written (credits on)", value: ledger.holds, unit: "", baseline: { label: "submissions accepted", value: acceptedHolds } },
      { label: "Credit rows of the credits-off owners", value: ledger.offRows, unit: "", baseline: { label: "expected", value: 0 } },
      { label: "Generations of the credits-off owners", value: ledger.offGenerations, unit: "", baseline: { label: "submissions accepted", value: acceptedOff } },
    ],
    targets: [
      { label: `≥ ${RPS_TARGET} × the submit rate without holds`, met: ratio >= RPS_TARGET, detail: `${ratio.toFixed(2)}× (median of the rounds' ratios ${ratios.map((r) => r.toFixed(2)).join(", ")}; medians ${Math.round(holds.rps)} vs ${Math.round(without.rps)} req/s, p99 ${holds.p99} vs ${without.p99} ms)` },
      {
        label: "every submission accepted, one hold each, none without credits",
        met: failures === 0 && ledger.holds === acceptedHolds && ledger.heldGenerations === acceptedHolds && ledger.offRows === 0 && ledger.offGenerations === acceptedOff,
        detail: `${ledger.holds} holds for ${acceptedHolds} accepted (${ledger.heldGenerations} generations of those owners); ${ledger.offRows} credit rows for ${ledger.offGenerations} credits-off generations; ${describeCodes(codes)}`,
      },
    ],
    notes: [
      sqlite
        ? `With holds a submission's insert is a transaction of two statements (the generation, then the hold: one \`INSERT … SELECT\` that sums the ledger and checks the owner was welcomed in the statement that writes it; no \`CreditLock\` row, since a SQLite file runs one transaction at a time) instead of one \`INSERT\`, and SQLite runs one writer at a time, so every submission's write queues behind every other's whoever the owner: the ratio is what those statements add to a path that also waits for the gateway's answer and writes the PENDING update (p99 ${holds.p99} vs ${without.p99} ms).`
        : `With holds a submission's insert is a transaction of three statements (the owner's \`CreditLock\` upsert, the generation, then the hold: one \`INSERT … SELECT\` that sums the ledger and checks the owner was welcomed in the statement that writes it) instead of one \`INSERT\`, on a connection of the app's pool held for the transaction; the lock row is per owner, so submissions of different owners do not wait for each other (p99 ${holds.p99} vs ${without.p99} ms).`,
    ],
  };
}

async function countLedger(db: BenchDb, holdOwners: string[], offOwners: string[]) {
  const [holds, heldGenerations, offRows, offGenerations] = await Promise.all([
    db.creditEntry.count({ where: { ownerId: { in: holdOwners }, kind: "HOLD" } }),
    db.generation.count({ where: { ownerId: { in: holdOwners } } }),
    db.creditEntry.count({ where: { ownerId: { in: offOwners } } }),
    db.generation.count({ where: { ownerId: { in: offOwners } } }),
  ]);
  return { holds, heldGenerations, offRows, offGenerations };
}

/** The rounds' medians. */
function medianOf(loads: LoadFigures[]) {
  return {
    rps: median(loads.map((l) => l.rps)),
    p50: median(loads.map((l) => l.p50)),
    p99: median(loads.map((l) => l.p99)),
  };
}
