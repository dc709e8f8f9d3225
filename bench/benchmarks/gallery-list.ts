// 4. The gallery list at 10 000 generations: latency of GET /api/generations
// beside GET /api/ping, and what a poll costs when nothing changed.
import http from "node:http";
import { runLoad } from "../cannon";
import { benchViewerCookie, seedSucceeded, waitForCopiesSettled, type BenchDb } from "../db";
import type { Section } from "../report";
import type { Stack } from "../stack";
import { describeCodes } from "./callback-receiver";

const GENERATIONS = 10_000;
const CONNECTIONS = 8;
const SECONDS = 6;

export async function benchGalleryList(stack: Stack, db: BenchDb): Promise<Section> {
  // The seeding below must not queue behind the copy jobs of earlier benchmarks (SQLite has one writer).
  await waitForCopiesSettled(db);
  const existing = await db.generation.count();
  // A result URL the simulator really serves (from benchmark 3's tasks, submitted through the app, so not seeded by bench/db.ts), so that the gallery's players load as they would.
  const served = await db.generation.findFirst({
    where: { state: "SUCCESS", id: { not: { contains: "-" } }, resultUrls: { startsWith: `["${stack.simulatorUrl}/media/` } },
    select: { resultUrls: true },
  });
  const resultUrl = served ? (JSON.parse(served.resultUrls) as string[])[0] : undefined;
  await seedSucceeded(db, { prefix: "gallery", count: Math.max(0, GENERATIONS - existing), resultUrl: resultUrl ?? `${stack.simulatorUrl}/media/missing.mp4` });
  const total = await db.generation.count();

  const listUrl = `${stack.appUrl}/api/generations`;
  // As the seeded rows' owner (the gallery is per owner); the ping baseline carries the same cookie.
  const owner = { Cookie: benchViewerCookie(stack.webhookSecret) };
  const load = (url: string, headers?: Record<string, string>) =>
    runLoad({ url, connections: CONNECTIONS, duration: SECONDS, headers: { ...owner, ...headers } }, { workDir: stack.workDir, timeoutMs: 60_000 });
  // Search: a term one row in 10,000 holds, and one every row holds (the first page of them).
  const rareUrl = `${listUrl}?q=${encodeURIComponent("take 4242")}`;
  const commonUrl = `${listUrl}?q=${encodeURIComponent("paper boat")}`;
  // A first read asks for the copies of the videos it shows; a poll
  // while they are being made would rightly see the page change, so they are
  // let finish before "nothing changed" is measured.
  for (const url of [listUrl, rareUrl, commonUrl]) await responseSize(url, owner);
  await waitForCopiesSettled(db);
  const full = await responseSize(listUrl, owner);
  const unchanged = await responseSize(listUrl, { ...owner, "If-None-Match": full.etag });

  await load(listUrl); // warm-up
  const ping = await load(`${stack.appUrl}/api/ping`);
  const list = await load(listUrl);
  const conditional = await load(listUrl, { "If-None-Match": full.etag });
  const rare = await load(rareUrl);
  const common = await load(commonUrl);
  const searchErrors = rare.non2xx + rare.errors + common.non2xx + common.errors;
  const label = `GET /api/ping, ${CONNECTIONS} connections`;
  const all304 = (conditional.statusCodes["304"] ?? 0) === conditional.requests && conditional.requests > 0;

  return {
    title: "4. Gallery list endpoint",
    setup: `${total.toLocaleString("en-US")} generations in the database (${GENERATIONS.toLocaleString("en-US")} target; the rest seeded as finished videos sharing one result URL the simulator serves), first page (24 items, newest first). autocannon, ${CONNECTIONS} connections, ${SECONDS} s per run after a warm-up; baseline \`GET /api/ping\` at the same concurrency. Bytes counted on the wire (status line, headers and body) of one request each.`,
    figures: [
      { label: "Latency p50", value: list.p50, unit: "ms", baseline: { label, value: ping.p50 } },
      { label: "Latency p99", value: list.p99, unit: "ms", baseline: { label, value: ping.p99 } },
      { label: "Requests/s", value: list.rps, unit: "req/s", baseline: { label, value: ping.rps } },
      { label: "Conditional poll (If-None-Match) p50", value: conditional.p50, unit: "ms", baseline: { label: "unconditional list p50", value: list.p50 } },
      { label: "Conditional poll (If-None-Match) p99", value: conditional.p99, unit: "ms", baseline: { label: "unconditional list p99", value: list.p99 } },
      { label: "Bytes per poll, nothing changed", value: unchanged.bytes, unit: "B", baseline: { label: `full page, ${full.status}`, value: full.bytes } },
      { label: "Search, 1 match in the table (`?q=take 4242`) p50", value: rare.p50, unit: "ms", baseline: { label: "unfiltered list p50", value: list.p50 } },
      { label: "Search, 1 match in the table p99", value: rare.p99, unit: "ms", baseline: { label: "unfiltered list p99", value: list.p99 } },
      { label: "Search, every row matches (`?q=paper boat`) p50", value: common.p50, unit: "ms", baseline: { label: "unfiltered list p50", value: list.p50 } },
      { label: "Search, every row matches p99", value: common.p99, unit: "ms", baseline: { label: "unfiltered list p99", value: list.p99 } },
    ],
    targets: [
      {
        label: "a poll that finds nothing changed does not resend the list",
        met: unchanged.status === 304 && all304,
        detail: `HTTP ${unchanged.status}, ${unchanged.bytes} B vs ${full.bytes.toLocaleString("en-US")} B (${(unchanged.bytes / full.bytes).toFixed(3)}×); under load ${describeCodes(conditional.statusCodes)}`,
      },
      { label: "p50/p99 reported", met: list.non2xx === 0 && list.errors === 0, detail: `p50 ${list.p50} ms, p99 ${list.p99} ms (${describeCodes(list.statusCodes)})` },
      {
        label: "search works at 10,000 rows (no errors; p50 reported against the unfiltered list)",
        met: searchErrors === 0,
        detail: `one match: p50 ${rare.p50} ms (${(rare.p50 / Math.max(list.p50, 1)).toFixed(1)}× the list); every row matching: p50 ${common.p50} ms (${(common.p50 / Math.max(list.p50, 1)).toFixed(1)}×); ${searchErrors} errors`,
      },
    ],
    notes: [
      `The list reads one index range (\`ORDER BY createdAt DESC, id DESC LIMIT 25\` on the matching index), so its cost does not grow with the table; it is Prisma, 24 rows' JSON and Next's handler, ${(list.p50 / Math.max(ping.p50, 1)).toFixed(1)}× the empty route at p50.`,
      "Search matches `promptSearch` (the prompt lower-cased) with `LIKE '%…%'`. PostgreSQL can answer it from a trigram index (GIN, pg_trgm); SQLite has no index for a substring, so it reads the owner's rows newest first until the page is full: quick when matches are common, a scan of all the owner's rows when they are rare.",
      `A conditional poll saves bytes, not server work: the ETag is a hash of the serialized page, so a 304 still runs the query and the serialization (p50 ${conditional.p50} ms against ${list.p50} ms for the full answer). If polls ever dominate, a validator computed from the page's ids and updatedAt would let the server skip building the body.`,
    ],
  };
}

/** One request; the bytes the client read off the socket for the whole response. */
function responseSize(url: string, headers: Record<string, string> = {}): Promise<{ status: number; bytes: number; etag: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers: { ...headers, Connection: "close" }, agent: false }, (response) => {
      response.resume();
      response.on("end", () => {
        const socket = response.socket;
        setImmediate(() => resolve({ status: response.statusCode ?? 0, bytes: socket.bytesRead, etag: String(response.headers.etag ?? "") }));
      });
    });
    request.on("error", reject);
    request.setTimeout(10_000, () => request.destroy(new Error(`${url} timed out`)));
  });
}
