// 1. The callback receiver under load: distinct PENDING tasks, each finished by
// one complete flat callback, beside GET /api/ping (an empty route handler of
// the same app) at the same concurrency; and the same load with uploads being
// checked beside it (a 1080p clip, back to back), which must not slow it.
// Then at a fixed arrival rate (open loop), half of what the empty route
// served at saturation in the same run: the latency and event-loop delay a
// user's request meets on a server that is busy but not saturated.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { runLoad, type LoadFigures } from "../cannon";
import { seedPending, successBody, tallyOutcomes, waitForCopiesSettled, type BenchDb, type SeededTask } from "../db";
import type { Section } from "../report";
import type { EventLoopDelay } from "../event-loop";
import type { Stack } from "../stack";
import { median } from "../stats";
import { probeWritePath, type WritePathProbe } from "../write-path-probe";
import { freePort } from "../../scripts/free-port";
import { countStatuses, hdClip, UPLOADS_BESIDE, withUploadsBeside } from "./uploads";

const CONNECTIONS = 64;
const CALLBACKS = Number(process.env.BENCH_CALLBACKS ?? 2000);
const PING_SECONDS = 5;
/** Rounds of baseline and callbacks; the figures are their medians. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Open-loop runs, each measuring its own empty-route capacity first; the figures are their medians. */
const OPEN_LOOP_RUNS = Number(process.env.BENCH_OPEN_LOOP_RUNS ?? 5);
/** Seconds each open-loop load lasts. */
const OPEN_LOOP_SECONDS = Number(process.env.BENCH_OPEN_LOOP_SECONDS ?? 30);
/** The open-loop rate as a share of the same run's empty-route requests/s at saturation. */
const OPEN_LOOP_SHARE = 0.5;
/** Open loop: the receiver's p99 latency against the empty route's at the same rate. */
const OPEN_LOOP_P99_TARGET = 2;
const WARM_UP_CALLBACKS = 256;
/** The receiver's share of the empty route's requests/s, per engine. */
const RPS_TARGET = { sqlite: 0.4, postgres: 0.6 } as const;
/** p99 at CONNECTIONS against the empty route's p99 at the same concurrency. */
const P99_RATIO_TARGET = 1.5;
/** Event-loop delay p99 of the app under callback load at the open-loop rate, on both engines. */
const EVENT_LOOP_P99_TARGET_MS = 20;
/** Event-loop delay p99 and requests/s with uploads beside, against the same load without them. */
const UPLOADS_BESIDE_TARGET = 1.25;

export async function benchCallbackReceiver(stack: Stack, db: BenchDb): Promise<Section> {
  const load = (job: Parameters<typeof runLoad>[0]) => runLoad(job, { workDir: stack.workDir, timeoutMs: 120_000 });
  const pingLoad = () => load({ url: `${stack.appUrl}/api/ping`, connections: CONNECTIONS, duration: PING_SECONDS });
  const callbacks = (tasks: SeededTask[], appUrl = stack.appUrl, overallRate?: number) =>
    load({
      url: `${appUrl}/api/webhooks/gateway`,
      connections: CONNECTIONS,
      amount: tasks.length,
      overallRate,
      method: "POST",
      headers: { "content-type": "application/json" },
      items: tasks.map((t) => ({ path: `/api/webhooks/gateway?token=${encodeURIComponent(t.token)}`, body: successBody(t, stack.simulatorUrl) })),
    });

  // A second `next start` of the same build on the same database and simulator, with media copies off (see copiesNote).
  const copiesOff = await stack.startApp({ port: await freePort(), env: { MEDIA_STORAGE: "none" }, log: "app-copies-off.log" });
  const clipDir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-bench-beside-"));
  const clip = hdClip(clipDir);
  const clipBytes = fs.statSync(clip).size;
  const rounds: Round[] = [];
  const openRuns: OpenRun[] = [];
  try {
    // Warm-up (JIT, route compilation, connection pools), not reported.
    await load({ url: `${stack.appUrl}/api/ping`, connections: CONNECTIONS, duration: 2 });
    await callbacks(await seedPending(db, { prefix: "warm", count: WARM_UP_CALLBACKS, secret: stack.webhookSecret }));
    await callbacks(await seedPending(db, { prefix: "warm-off", count: WARM_UP_CALLBACKS, secret: stack.webhookSecret }), copiesOff.url);
    await waitForCopiesSettled(db);

    // Rounds of baseline, callbacks, callbacks with copies off, each right after the other, so that
    // drift of a shared machine hits all three alike; the figures are the rounds' medians.
    for (let round = 1; round <= ROUNDS; round++) {
      const { result: ping, delay: pingDelay } = await stack.eventLoop.during(pingLoad);
      const tasks = await seedPending(db, { prefix: `cb${round}`, count: CALLBACKS, secret: stack.webhookSecret });
      const { result: received, delay } = await stack.eventLoop.during(() => callbacks(tasks));
      // The copy jobs these callbacks started run in the background: done before the next load.
      await waitForCopiesSettled(db);
      const offTasks = await seedPending(db, { prefix: `off${round}`, count: CALLBACKS, secret: stack.webhookSecret });
      const { result: receivedOff, delay: delayOff } = await copiesOff.eventLoop.during(() => callbacks(offTasks, copiesOff.url));
      // The same load with uploads being checked beside it (mediabunny on worker threads, through the media pool).
      const besideTasks = await seedPending(db, { prefix: `up${round}`, count: CALLBACKS, secret: stack.webhookSecret });
      const { result: beside, delay: delayBeside } = await stack.eventLoop.during(() => withUploadsBeside(stack.appUrl, clip, () => callbacks(besideTasks)));
      await waitForCopiesSettled(db);
      rounds.push({ ping, pingDelay, tasks, received, delay, offTasks, receivedOff, delayOff, besideTasks, receivedBeside: beside.result, delayBeside, uploads: beside.statuses });
    }
    // Open loop: each run measures the empty route's capacity, then sends pings and callbacks at half of it.
    for (let run = 1; run <= OPEN_LOOP_RUNS; run++) {
      const capacity = (await pingLoad()).rps;
      const rate = Math.max(1, Math.round(capacity * OPEN_LOOP_SHARE));
      const { result: ping, delay: pingDelay } = await stack.eventLoop.during(() =>
        load({ url: `${stack.appUrl}/api/ping`, connections: CONNECTIONS, amount: rate * OPEN_LOOP_SECONDS, overallRate: rate }),
      );
      const tasks = await seedPending(db, { prefix: `open${run}`, count: rate * OPEN_LOOP_SECONDS, secret: stack.webhookSecret });
      const { result: received, delay } = await stack.eventLoop.during(() => callbacks(tasks, stack.appUrl, rate));
      await waitForCopiesSettled(db);
      openRuns.push({ capacity, rate, ping, pingDelay, tasks, received, delay });
    }
  } finally {
    await copiesOff.stop();
    fs.rmSync(clipDir, { recursive: true, force: true });
  }
  const baseline = medianLoad(rounds.map((r) => r.ping));
  const received = medianLoad(rounds.map((r) => r.received));
  const pingDelay = medianDelay(rounds.map((r) => r.pingDelay));
  const delay = medianDelay(rounds.map((r) => r.delay));
  const withoutCopies = { received: medianLoad(rounds.map((r) => r.receivedOff)), delay: medianDelay(rounds.map((r) => r.delayOff)) };
  const beside = { received: medianLoad(rounds.map((r) => r.receivedBeside)), delay: medianDelay(rounds.map((r) => r.delayBeside)) };
  const uploads = rounds.flatMap((r) => r.uploads);
  const uploadsKept = uploads.filter((status) => status === 201).length;
  const tally = await tallyOutcomes(db, [...rounds.flatMap((r) => [...r.tasks, ...r.offTasks, ...r.besideTasks]), ...openRuns.flatMap((r) => r.tasks)].map((t) => t.id));
  const seeded = rounds.length * CALLBACKS * 3 + openRuns.reduce((total, r) => total + r.tasks.length, 0);
  const open = {
    rate: median(openRuns.map((r) => r.rate)),
    ping: medianLoad(openRuns.map((r) => r.ping)),
    pingDelay: medianDelay(openRuns.map((r) => r.pingDelay)),
    received: medianLoad(openRuns.map((r) => r.received)),
    delay: medianDelay(openRuns.map((r) => r.delay)),
    p99Ratio: median(openRuns.map((r) => r.received.p99 / r.ping.p99)),
  };
  const openLabel = `GET /api/ping at the same rate`;
  const sqlite = stack.engine === "sqlite";
  const probe = await probeWritePath(db, { url: stack.databaseUrl, secret: stack.webhookSecret });
  const rpsTarget = RPS_TARGET[stack.engine];
  const delayLabel = `the same process under GET /api/ping, ${CONNECTIONS} connections`;

  // autocannon counts a timeout as an error too.
  // Counts over every callback load, with copies and without (medianLoad sums them).
  const everyLoad = medianLoad([...rounds.flatMap((r) => [r.received, r.receivedOff, r.receivedBeside]), ...openRuns.map((r) => r.received)]);
  const failures = everyLoad.non2xx + everyLoad.errors;
  const perRound = (pick: (r: Round) => string) => rounds.map(pick).join(", ");
  const rpsRatio = received.rps / baseline.rps;
  const besideDelayRatio = beside.delay.p99 / delay.p99;
  const besideRpsRatio = beside.received.rps / received.rps;
  const label = `GET /api/ping, ${CONNECTIONS} connections`;
  return {
    title: "1. Callback receiver",
    setup: `${ROUNDS} rounds, each of: the baseline, \`GET /api/ping\` (empty handler, no database), ${PING_SECONDS} s at ${CONNECTIONS} connections; then ${CALLBACKS.toLocaleString("en-US")} PENDING generations with distinct task ids seeded in the database, and autocannon posting each one complete flat \`SUCCESS\` body (\`{taskId, state, resultUrls, creditsConsumed}\`) with that generation's callback token, ${CONNECTIONS} connections, each task exactly once; then, once the copy jobs those callbacks started are done, as many more to a second \`next start\` with copies off (below); then as many more to the first app while ${UPLOADS_BESIDE} uploads at a time of a 1080p clip (1920 × 1080, 5 s, ${(clipBytes / 1024 / 1024).toFixed(1)} MB; each from a new visitor, through \`POST /api/uploads\`: sniffed, probed and remuxed on the app's worker threads) run back to back beside the load. Figures are the rounds' medians (requests/s per round: baseline ${perRound((r) => fmtRps(r.ping.rps))}; callbacks ${perRound((r) => fmtRps(r.received.rps))}; copies off ${perRound((r) => fmtRps(r.receivedOff.rps))}; uploads beside ${perRound((r) => fmtRps(r.receivedBeside.rps))}), so that one disturbed round of a shared machine does not decide a target. A warm-up of ${WARM_UP_CALLBACKS} callbacks to each app and 2 s of pings is not counted. Then ${OPEN_LOOP_RUNS} open-loop runs, each: the empty route at saturation (${PING_SECONDS} s, ${CONNECTIONS} connections) for its capacity, then \`GET /api/ping\` and then as many fresh PENDING tasks' callbacks, each sent at ${OPEN_LOOP_SHARE} × that capacity (autocannon's \`overallRate\`, ${CONNECTIONS} connections, ${OPEN_LOOP_SECONDS} s), copies on (rates per run: ${openRuns.map((r) => fmtRps(r.rate)).join(", ")} req/s; receiver p99 per run: ${openRuns.map((r) => `${r.received.p99} vs ${r.ping.p99} ms`).join("; ")}). The open-loop targets are the median of the runs' values, each against its own run's baseline. At saturation the empty route's own event-loop delay is far above 20 ms (the load generator shares the 2 cores), so the event-loop target is measured at the open-loop rate only.`,
    figures: [
      { label: "Requests/s", value: received.rps, unit: "req/s", baseline: { label, value: baseline.rps } },
      { label: "Latency p50", value: received.p50, unit: "ms", baseline: { label, value: baseline.p50 } },
      { label: "Latency p99", value: received.p99, unit: "ms", baseline: { label, value: baseline.p99 } },
      { label: "Latency max", value: received.max, unit: "ms", baseline: { label, value: baseline.max } },
      { label: "App event-loop delay p50", value: delay.p50, unit: "ms", baseline: { label: delayLabel, value: pingDelay.p50 } },
      { label: "App event-loop delay p99", value: delay.p99, unit: "ms", baseline: { label: delayLabel, value: pingDelay.p99 } },
      { label: "App event-loop delay max", value: delay.max, unit: "ms", baseline: { label: delayLabel, value: pingDelay.max } },
      { label: "Requests/s, copies off (a second app, `MEDIA_STORAGE=none`)", value: withoutCopies.received.rps, unit: "req/s", baseline: { label, value: baseline.rps } },
      { label: "App event-loop delay p99, copies off", value: withoutCopies.delay.p99, unit: "ms", baseline: { label: delayLabel, value: pingDelay.p99 } },
      { label: `Requests/s, ${UPLOADS_BESIDE} uploads of a 1080p clip checked beside`, value: beside.received.rps, unit: "req/s", baseline: { label: "the same load without uploads", value: received.rps } },
      { label: "App event-loop delay p99, uploads beside", value: beside.delay.p99, unit: "ms", baseline: { label: "the same load without uploads", value: delay.p99 } },
      { label: "App event-loop delay max, uploads beside", value: beside.delay.max, unit: "ms", baseline: { label: "the same load without uploads", value: delay.max } },
      { label: "Uploads checked and kept beside the load (201)", value: uploadsKept, unit: "", baseline: { label: "uploads sent", value: uploads.length } },
      { label: "Open loop: requests/s sent and answered", value: open.received.rps, unit: "req/s", baseline: { label: `the rate asked (${OPEN_LOOP_SHARE} × each run's empty-route capacity)`, value: open.rate } },
      { label: "Open loop: latency p50", value: open.received.p50, unit: "ms", baseline: { label: openLabel, value: open.ping.p50 } },
      { label: "Open loop: latency p99", value: open.received.p99, unit: "ms", baseline: { label: openLabel, value: open.ping.p99 } },
      { label: "Open loop: app event-loop delay p99", value: open.delay.p99, unit: "ms", baseline: { label: openLabel, value: open.pingDelay.p99 } },
      { label: "Non-2xx, errors, timeouts", value: failures, unit: "", baseline: { label: "expected", value: 0 } },
      { label: "Generations SUCCESS", value: tally.success, unit: "", baseline: { label: "seeded", value: seeded } },
      { label: "Generations with exactly one APPLIED delivery", value: tally.appliedOnce, unit: "", baseline: { label: "seeded", value: seeded } },
      { label: "Probe: the outcome write (update + delivery, atomic), one at a time", value: probe.outcomeWriteMs, unit: "ms", baseline: { label: "the two Prisma writes it replaced (`updateManyAndReturn`, `delivery.create`)", value: probe.prismaWritesMs } },
      { label: "Probe: the outcome write, 64 at once (per write)", value: probe.outcomeWriteConcurrentMs, unit: "ms", baseline: { label: "one at a time", value: probe.outcomeWriteMs } },
    ],
    targets: [
      { label: `≥ ${rpsTarget} × the baseline's requests/s`, met: rpsRatio >= rpsTarget, detail: `${rpsRatio.toFixed(2)}× (${fmtRps(received.rps)} vs ${fmtRps(baseline.rps)} req/s)` },
      {
        label: `open loop (${OPEN_LOOP_SHARE} × the empty route's capacity): p99 ≤ ${OPEN_LOOP_P99_TARGET} × the empty route's p99 at the same rate`,
        met: open.p99Ratio <= OPEN_LOOP_P99_TARGET,
        detail: `${open.p99Ratio.toFixed(2)}× (median of ${openRuns.length} runs' ratios; p99 ${open.received.p99} vs ${open.ping.p99} ms at ${fmtRps(open.rate)} req/s; p50 ${open.received.p50} vs ${open.ping.p50} ms)`,
      },
      {
        label: `open loop: app event-loop delay p99 < ${EVENT_LOOP_P99_TARGET_MS} ms under callback load`,
        met: open.delay.p99 < EVENT_LOOP_P99_TARGET_MS,
        detail: `p99 ${open.delay.p99.toFixed(1)} ms, max ${open.delay.max.toFixed(0)} ms (under the empty route at the same rate: p99 ${open.pingDelay.p99.toFixed(1)} ms; at saturation, ${delay.p99.toFixed(1)} vs ${pingDelay.p99.toFixed(1)} ms, reported above without a target)`,
      },
      {
        label: `uploads checked beside the load do not slow it: event-loop delay p99 and requests/s within ${UPLOADS_BESIDE_TARGET}× of the same load without them`,
        met: besideDelayRatio <= UPLOADS_BESIDE_TARGET && besideRpsRatio >= 1 / UPLOADS_BESIDE_TARGET && uploadsKept > 0,
        detail: `event-loop p99 ${beside.delay.p99.toFixed(1)} vs ${delay.p99.toFixed(1)} ms (${besideDelayRatio.toFixed(2)}×), ${fmtRps(beside.received.rps)} vs ${fmtRps(received.rps)} req/s (${besideRpsRatio.toFixed(2)}×), ${uploadsKept} of ${uploads.length} uploads kept (${describeCodes(countStatuses(uploads))})`,
      },
      {
        label: `p99 ≤ ${P99_RATIO_TARGET} × the baseline's p99 at ${CONNECTIONS} connections`,
        met: received.p99 <= P99_RATIO_TARGET * baseline.p99,
        detail: `${(received.p99 / baseline.p99).toFixed(2)}× (p99 ${received.p99} vs ${Math.round(baseline.p99)} ms; p50 ${received.p50} ms)`,
      },
      {
        label: "no errors",
        met: failures === 0,
        detail: `${failures} of ${everyLoad.requests + everyLoad.errors} (${everyLoad.non2xx} non-2xx, ${everyLoad.errors} errors of which ${everyLoad.timeouts} timeouts after 10 s; ${describeCodes(everyLoad.statusCodes)})`,
      },
      {
        label: "every task terminal exactly once",
        met: tally.success === seeded && tally.appliedOnce === seeded && tally.appliedTwiceOrMore === 0,
        detail: `${tally.success}/${seeded} SUCCESS, ${tally.appliedOnce} with one APPLIED delivery, ${tally.appliedTwiceOrMore} with more; deliveries ${describeCodes(tally.outcomes)}`,
      },
    ],
    notes: [
      copiesNote({ rpsRatio, delayP99: delay.p99, withoutCopies, baselineRps: baseline.rps }),
      ...(sqlite
        ? sqliteNotes({ rpsRatio, probe, baselineP99: baseline.p99, delayP99: delay.p99 })
        : postgresNotes({ rpsRatio, probe, delayP99: delay.p99, pingDelayP99: pingDelay.p99 })),
      ...(failures > 0 && everyLoad.non2xx === 0 && tally.success === seeded
        ? [`The ${failures} errors are autocannon giving up after 10 s in that queue, not refusals: the app still processed those requests, and every task ended SUCCESS with exactly one APPLIED delivery.`]
        : []),
    ],
  };
}

function copiesNote({ rpsRatio, delayP99, withoutCopies, baselineRps }: { rpsRatio: number; delayP99: number; withoutCopies: { received: LoadFigures; delay: EventLoopDelay }; baselineRps: number }): string {
  const ratio = withoutCopies.received.rps / baselineRps;
  return `Copies off, for comparison: every SUCCESS callback also asks for its result to be copied (\`MEDIA_STORAGE\`, on by default), and the copy job runs in the same process: a claim, a download (here the simulator answers 404 for these seeded tasks, so it ends at once and is recorded as failed), a result write and a live event. The same load, in each round, against a second \`next start\` of the same build, database and simulator with \`MEDIA_STORAGE=none\`: ${ratio.toFixed(2)}× the baseline (${fmtRps(withoutCopies.received.rps)} req/s) against ${rpsRatio.toFixed(2)}× with copies, event-loop delay p99 ${withoutCopies.delay.p99.toFixed(1)} ms against ${delayP99.toFixed(1)} ms, p99 latency ${withoutCopies.received.p99} ms.`;
}

function sqliteNotes({ rpsRatio, probe, baselineP99, delayP99 }: { rpsRatio: number; probe: WritePathProbe; baselineP99: number; delayP99: number }): string[] {
  return [
    `A SUCCESS callback is one outcome write (lib/database/outcome-write-sqlite.ts): the conditional \`UPDATE … RETURNING\` and the delivery \`INSERT\` in one transaction, on the connection Prisma's adapter uses, without Prisma's query compiler; then the live event and the media copy request. ${rpsRatio.toFixed(2)}× the empty route here.`,
    `What a write costs (probe, bench process, app idle): ${probe.outcomeWriteMs.toFixed(2)} ms one at a time, against ${probe.prismaWritesMs.toFixed(2)} ms for the two Prisma writes it replaced. One at a time, each commit waits for an fsync of the WAL (SQLite's default synchronous = FULL), which dominates; 64 at once cost ${probe.outcomeWriteConcurrentMs.toFixed(2)} ms per write, because writes queued while one transaction runs are committed together (group commit: one fsync for the group).`,
    `What limits it: SQLite runs on a worker thread (lib/database/sqlite-thread.ts: libSQL's driver is synchronous, so its statements and fsyncs no longer stall the event loop), and a group commit answers its callers one per event-loop turn. What is left of the delay (p99 ${delayP99.toFixed(0)} ms under callback load) is the main thread's per-request work: in a CPU profile of this load, Next and the app's code 41 %, Node internals (async hooks, streams, AbortSignal) 27 %, garbage collection 16 %, Prisma's query compiler and runtime 8 %, SQLite about 0 %.`,
    `The empty baseline route itself had p99 ${Math.round(baselineP99)} ms at ${CONNECTIONS} connections on this shared 2-core machine, with the load generator on the same cores.`,
  ];
}

function postgresNotes({ rpsRatio, probe, delayP99, pingDelayP99 }: { rpsRatio: number; probe: WritePathProbe; delayP99: number; pingDelayP99: number }): string[] {
  return [
    `A SUCCESS callback is one outcome write (lib/database/outcome-write-postgres.ts): one statement, the conditional \`UPDATE … RETURNING\` and the delivery \`INSERT\` as data-modifying CTEs, sent with plain \`pg\` on the pool Prisma's adapter uses (DATABASE_POOL_MAX, 5 by default): one round trip, no BEGIN/COMMIT, no query compiler. The change is published with \`pg_notify\` in batches, and the media copy queue batches its statements across callbacks. ${rpsRatio.toFixed(2)}× the empty route here.`,
    `What a write costs (probe, bench process, app idle): ${probe.outcomeWriteMs.toFixed(2)} ms one at a time (${probe.outcomeWriteConcurrentMs.toFixed(2)} ms per write with 64 at once on a pool of 5), against ${probe.prismaWritesMs.toFixed(2)} ms for the two Prisma writes it replaced (three round trips for updateManyAndReturn's transaction, one for the insert).`,
    `Event-loop delay p99 of the app: ${delayP99.toFixed(1)} ms under callback load against ${pingDelayP99.toFixed(1)} ms under the empty route's load. Sampled every 5 ms by bench/event-loop-probe.mjs, loaded into \`next start\` by the bench only (NODE_OPTIONS). What remains per callback is Next's request handling, measured: in a CPU profile of \`next start\` under 3 × 2,000 callbacks with copies off (da2aaff, inspector profiler loaded by \`--import\`), the process was idle 48 % of the time (the two cores are shared with the load generator and PostgreSQL); of its busy time, Node internals (Request and AbortSignal construction, async hooks, streams) 22 %, Next's routing and app-route runtime about 20 %, garbage collection 10.5 %, socket writes 11 %, the app's own code about 9 %, \`pg\` 3 %.`,
    `Not the limit, measured once (da2aaff, this section's rounds): the statement's planning. Sent as a named prepared statement (planned once per connection; not what the app does, since transaction-mode poolers may refuse named statements), the outcome write alone went from 4,500 to 13,700 writes/s in a bench-process loop, yet the receiver stayed at 0.55× (477 vs 867 req/s) against 0.54× unnamed. Nor the pool: \`DATABASE_POOL_MAX\` 5 and 16 gave 493–704 and 451–803 req/s over the same rounds.`,
  ];
}

type OpenRun = { capacity: number; rate: number; ping: LoadFigures; pingDelay: EventLoopDelay; tasks: SeededTask[]; received: LoadFigures; delay: EventLoopDelay };

type Round = {
  ping: LoadFigures;
  pingDelay: EventLoopDelay;
  tasks: SeededTask[];
  received: LoadFigures;
  delay: EventLoopDelay;
  offTasks: SeededTask[];
  receivedOff: LoadFigures;
  delayOff: EventLoopDelay;
  besideTasks: SeededTask[];
  receivedBeside: LoadFigures;
  delayBeside: EventLoopDelay;
  /** Statuses of the uploads sent beside that load (0: the connection failed). */
  uploads: number[];
};


/** Rates and percentiles: the rounds' medians; counts: their sums; max: the largest. */
function medianLoad(loads: LoadFigures[]): LoadFigures {
  const sum = (pick: (l: LoadFigures) => number) => loads.reduce((total, l) => total + pick(l), 0);
  const statusCodes: Record<string, number> = {};
  for (const l of loads) for (const [code, n] of Object.entries(l.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    requests: sum((l) => l.requests),
    seconds: sum((l) => l.seconds),
    rps: median(loads.map((l) => l.rps)),
    p50: median(loads.map((l) => l.p50)),
    p99: median(loads.map((l) => l.p99)),
    max: Math.max(...loads.map((l) => l.max)),
    non2xx: sum((l) => l.non2xx),
    errors: sum((l) => l.errors),
    timeouts: sum((l) => l.timeouts),
    bytesPerResponse: median(loads.map((l) => l.bytesPerResponse)),
    statusCodes,
  };
}

function medianDelay(delays: EventLoopDelay[]): EventLoopDelay {
  return {
    pid: delays[0]!.pid,
    samples: delays.reduce((total, d) => total + d.samples, 0),
    p50: median(delays.map((d) => d.p50)),
    p99: median(delays.map((d) => d.p99)),
    max: Math.max(...delays.map((d) => d.max)),
  };
}

const fmtRps = (n: number) => Math.round(n).toLocaleString("en-US");
export const describeCodes = (counts: Record<string, number>) =>
  Object.entries(counts)
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ") || "none";
