// 8. The gallery at real size: 60 and 200 finished generations whose results
// are clips of real size (simulator/clips.ts), each shown as its still, in
// the system Chromium, against a page of the same stills in plain <img>
// tiles at the same places (the image grid), loaded in the same run through
// the same origin: bytes per tile, the first screen's time to show a picture
// in every tile, renderer memory, and the media players left after a scroll.
import fs from "node:fs";
import path from "node:path";
import { uniqueMarker } from "../../tests/support/simulator-control";
import { BROADBAND_20M, UNTHROTTLED, type Network } from "../chromium";
import { benchViewerCookie, plantCopiesOf, waitForCopiesSettled, type BenchDb } from "../db";
import { startOriginProxy, type OriginProxy } from "../origin-proxy";
import type { Figure, Section, Target } from "../report";
import type { Stack } from "../stack";
import { median } from "../stats";
import { imageGridHtml, netLogPath, visitTiles, VIEWPORT, type Visit, type VisitResult } from "../tile-load";

const SCENARIOS = [60, 200];
const NETWORKS = [UNTHROTTLED, BROADBAND_20M];
const REPEATS = Number(process.env.BENCH_GALLERY_REPEATS ?? 3);
/** Submitted for real, as tests/e2e/gallery-real-size.spec.ts does; the other tiles are planted beside them. */
const SUBMITTED = [
  { model: "alpha-2.5-text-to-video", aspect_ratio: "16:9" },
  { model: "alpha-2.5-text-to-video", aspect_ratio: "9:16" },
  { model: "alpha-2.5-text-to-video-480p", aspect_ratio: "1:1" },
];
const TARGET = { bytes: 1.2, framed: 1.3, memory: 1.5, players: 2 };
const SCREENSHOT = "bench/results/gallery-60-first-screen.png";

type Kind = "gallery" | "image grid";
type Scenario = { tiles: number; cookie: string; galleryUrl: string; gridUrl: string; cursor: { x: number; y: number } };
type Measured = { tiles: number; network: string; kind: Kind; result: VisitResult };

export async function benchGalleryRealSize(stack: Stack, db: BenchDb): Promise<Section> {
  const started = Date.now();
  const proxy = await startOriginProxy(stack.appUrl);
  try {
    const scenarios: Scenario[] = [];
    // Real generations in the smaller gallery, as the end-to-end test seeds it; the larger one is all planted copies of them.
    const models = await submitRealSize(stack, db, ownerOf(SCENARIOS[0]!));
    for (const tiles of SCENARIOS) scenarios.push(await prepare(stack, db, proxy, { tiles, models }));
    console.log(`[bench] gallery at real size: seeded and warmed up in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const visit = (s: Scenario, kind: Kind, network: Network, extra: Partial<Visit> = {}) =>
      visitTiles({
        url: kind === "gallery" ? s.galleryUrl : s.gridUrl,
        cookie: s.cookie,
        network,
        tiles: s.tiles,
        cursor: null,
        netLog: netLogPath(stack.workDir, `${s.tiles}-${kind.replace(" ", "-")}`),
        ...extra,
      });

    // Interleaved, the page that goes first alternating, so that both see the machine's load of the moment.
    const measured: Measured[] = [];
    for (let round = 0; round < REPEATS; round++) {
      for (const s of scenarios) {
        for (const network of NETWORKS) {
          const kinds: Kind[] = round % 2 === 0 ? ["gallery", "image grid"] : ["image grid", "gallery"];
          for (const kind of kinds) {
            const at = Date.now();
            measured.push({ tiles: s.tiles, network: network.label, kind, result: await visit(s, kind, network) });
            console.log(`[bench] gallery at real size: ${kind} ${s.tiles} ${network.label} ${((Date.now() - at) / 1000).toFixed(1)} s`);
          }
        }
      }
      console.log(`[bench] gallery at real size: round ${round + 1}/${REPEATS} done (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    // A wheel scroll with the cursor over the tiles, as a mouse user scrolls: hover previews start and stop on the way.
    const hovered = [];
    for (const s of scenarios) hovered.push({ tiles: s.tiles, result: await visit(s, "gallery", UNTHROTTLED, { cursor: s.cursor }) });
    return report(measured, hovered);
  } finally {
    await proxy.close();
  }
}

const ownerOf = (tiles: number) => `bench-tiles-${String(tiles).padStart(3, "0")}-000000`;

/** Three generations submitted through the API for `owner`, once the app has copied each result and extracted its still. */
async function submitRealSize(stack: Stack, db: BenchDb, owner: string): Promise<string[]> {
  const marker = uniqueMarker("bench-real-size");
  await stack.simulator.scenario({ match: marker, pendingMs: 1000 });
  const ids: string[] = [];
  for (const { model, aspect_ratio } of SUBMITTED) {
    const response = await fetch(`${stack.appUrl}/api/generations`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Cookie: benchViewerCookie(stack.webhookSecret, owner) },
      body: JSON.stringify({ model, input: { prompt: `A ${aspect_ratio} harbour at dawn ${marker}`, duration: 5, aspect_ratio } }),
    });
    if (response.status !== 201) throw new Error(`submit answered ${response.status}: ${await response.text()}`);
    ids.push(((await response.json()) as { id: string }).id);
  }
  await waitForStills(db, ids);
  return ids;
}

/**
 * The gallery of `tiles` videos of an owner of its own: the real ones it
 * already holds and copies of `models` planted beside them up to `tiles`.
 * Then a first visit (warm-up: the server's caches, the stills' first reads)
 * that records where its tiles are, from which its image grid is built.
 */
async function prepare(stack: Stack, db: BenchDb, proxy: OriginProxy, { tiles, models }: { tiles: number; models: string[] }): Promise<Scenario> {
  const owner = ownerOf(tiles);
  const real = await db.generation.count({ where: { ownerId: owner } });
  await plantCopiesOf(db, { models, owner, count: tiles - real });
  await waitForCopiesSettled(db);

  const cookie = benchViewerCookie(stack.webhookSecret, owner);
  const galleryUrl = `${proxy.url}/`;
  const gridUrl = `${proxy.url}/__bench/image-grid-${tiles}`;
  fs.mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
  const warmUp = await visitTiles({
    url: galleryUrl,
    cookie,
    network: UNTHROTTLED,
    tiles,
    cursor: null,
    netLog: netLogPath(stack.workDir, `${tiles}-warm-up`),
    ...(tiles === 60 ? { screenshot: SCREENSHOT } : {}),
  });
  const { geometry } = warmUp;
  if (geometry.tiles.length !== tiles || geometry.tiles.some((t) => !/^\/api\/media\/\w+\/still$/.test(t.src))) {
    throw new Error(`the gallery showed ${geometry.tiles.length}/${tiles} tiles, ${geometry.tiles.filter((t) => !t.src).length} without a still`);
  }
  proxy.servePage(new URL(gridUrl).pathname, imageGridHtml(geometry));
  // The cursor of the hover pass: over the middle of the tiles' columns, mid-screen.
  const centres = geometry.tiles.map((t) => t.left + t.width / 2);
  const cursor = { x: Math.round((Math.min(...centres) + Math.max(...centres)) / 2), y: VIEWPORT.height / 2 };
  console.log(`[bench] gallery at real size: ${tiles} tiles, page ${geometry.width}×${geometry.height} px, first screen framed in ${warmUp.framedMs.toFixed(0)} ms (warm-up)`);
  return { tiles, cookie, galleryUrl, gridUrl, cursor };
}

/** The app copies each result and extracts its still before the copy is DONE. */
async function waitForStills(db: BenchDb, ids: string[]): Promise<void> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const copies = await db.mediaCopy.findMany({ where: { generationId: { in: ids } } });
    const failed = copies.find((c) => c.state === "FAILED");
    if (failed) throw new Error(`copy failed: ${failed.lastError}`);
    if (copies.length === ids.length && copies.every((c) => c.state === "DONE" && c.stillKey)) return;
    if (Date.now() > deadline) throw new Error(`copies with stills after 3 minutes: ${copies.filter((c) => c.stillKey).length}/${ids.length} (is ffmpeg on PATH?)`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The ratio of a pair (value, baseline) is finite and at most `factor`. */
const within = ([value, baseline]: readonly [number, number], factor: number) => Number.isFinite(value / baseline) && value / baseline <= factor;

function report(measured: Measured[], hovered: { tiles: number; result: VisitResult }[]): Section {
  const of = (tiles: number, kind: Kind, network?: string) => measured.filter((m) => m.tiles === tiles && m.kind === kind && (!network || m.network === network)).map((m) => m.result);
  const grid = "image grid, same stills and places";
  const figures: Figure[] = [];
  const ratios = { bytes: [] as string[], framed: [] as string[], memory: [] as string[] };
  const met = { bytes: true, framed: true, memory: true };

  for (const tiles of SCENARIOS) {
    for (const { label: network } of NETWORKS) {
      const [g, b] = [of(tiles, "gallery", network), of(tiles, "image grid", network)];
      const bytes = [median(g.map((r) => r.bytes.total / tiles / 1024)), median(b.map((r) => r.bytes.total / tiles / 1024))] as const;
      const framed = [median(g.map((r) => r.framedMs)), median(b.map((r) => r.framedMs))] as const;
      const ttfb = [median(g.map((r) => r.ttfbMs)), median(b.map((r) => r.ttfbMs))] as const;
      figures.push(
        { label: `Bytes per tile, ${tiles} tiles, ${network}`, value: bytes[0], unit: "KiB", baseline: { label: grid, value: bytes[1] } },
        { label: `First screen framed, ${tiles} tiles, ${network}`, value: framed[0], unit: "ms", baseline: { label: grid, value: framed[1] } },
        { label: `Of which the HTML's first byte, ${tiles} tiles, ${network}`, value: ttfb[0], unit: "ms", baseline: { label: grid, value: ttfb[1] } },
      );
      ratios.bytes.push(`${tiles} tiles ${network} ${(bytes[0] / bytes[1]).toFixed(2)}× (${bytes[0].toFixed(1)} vs ${bytes[1].toFixed(1)} KiB)`);
      ratios.framed.push(`${tiles} tiles ${network} ${(framed[0] / framed[1]).toFixed(2)}× (${framed[0].toFixed(0)} vs ${framed[1].toFixed(0)} ms)`);
      met.bytes &&= within(bytes, TARGET.bytes);
      met.framed &&= within(framed, TARGET.framed);
    }
    // Memory does not depend on the network: the median of every visit of the page.
    const pss = [median(of(tiles, "gallery").map((r) => r.rendererPssKiB / 1024)), median(of(tiles, "image grid").map((r) => r.rendererPssKiB / 1024))] as const;
    figures.push({ label: `Renderer PSS after scrolling to the end, ${tiles} tiles`, value: pss[0], unit: "MiB", baseline: { label: grid, value: pss[1] } });
    if (tiles === Math.max(...SCENARIOS)) {
      ratios.memory.push(`${(pss[0] / pss[1]).toFixed(2)}× (${pss[0].toFixed(0)} vs ${pss[1].toFixed(0)} MiB)`);
      met.memory = within(pss, TARGET.memory);
    }
  }

  // The split of the largest gallery's bytes, unthrottled.
  const largest = Math.max(...SCENARIOS);
  const split = (kind: Kind, part: keyof VisitResult["bytes"]) => median(of(largest, kind, UNTHROTTLED.label).map((r) => r.bytes[part] / largest / 1024));
  figures.push(
    { label: `Of which stills, per tile, ${largest} tiles`, value: split("gallery", "stills"), unit: "KiB", baseline: { label: grid, value: split("image grid", "stills") } },
    { label: `Of which the page (HTML, scripts, styles, API, event stream), per tile, ${largest} tiles`, value: split("gallery", "page"), unit: "KiB", baseline: { label: grid, value: split("image grid", "page") } },
    { label: `Of which video, per tile, ${largest} tiles`, value: split("gallery", "video"), unit: "KiB", baseline: { label: grid, value: split("image grid", "video") } },
  );

  const parked = measured.filter((m) => m.kind === "gallery").map((m) => m.result);
  const worst = (results: VisitResult[], pick: (r: VisitResult) => number) => Math.max(...results.map(pick));
  const players = Math.max(worst(parked, (r) => r.livePlayers), worst(parked, (r) => r.videoElements), ...hovered.map((h) => Math.max(h.result.livePlayers, h.result.videoElements)));
  for (const h of hovered) {
    figures.push(
      { label: `After a scroll with the cursor over the tiles, ${h.tiles} tiles: \`<video>\` elements`, value: h.result.videoElements, unit: "" },
      { label: `After a scroll with the cursor over the tiles, ${h.tiles} tiles: media players live (${h.result.playersCreated} created)`, value: h.result.livePlayers, unit: "" },
      { label: `After a scroll with the cursor over the tiles, ${h.tiles} tiles: media players live after a forced garbage collection`, value: h.result.livePlayersAfterGc, unit: "" },
      { label: `After a scroll with the cursor over the tiles, ${h.tiles} tiles: bytes per tile`, value: h.result.bytes.total / h.tiles / 1024, unit: "KiB" },
      { label: `After a scroll with the cursor over the tiles, ${h.tiles} tiles: renderer PSS`, value: h.result.rendererPssKiB / 1024, unit: "MiB" },
    );
  }
  figures.push({ label: "Tiles on the first screen", value: median(parked.map((r) => r.framedTiles)), unit: "", baseline: { label: "image grid", value: median(measured.filter((m) => m.kind === "image grid").map((m) => m.result.framedTiles)) } });

  const targets: Target[] = [
    { label: `poster grid: bytes per tile ≤ ${TARGET.bytes}× the image grid`, met: met.bytes, detail: ratios.bytes.join("; ") },
    { label: `poster grid: first screen framed ≤ ${TARGET.framed}× the image grid's time`, met: met.framed, detail: ratios.framed.join("; ") },
    { label: `poster grid: renderer memory at ${largest} tiles ≤ ${TARGET.memory}× the image grid`, met: met.memory, detail: ratios.memory.join("; ") },
    {
      label: `poster grid: live players after a full scroll ≤ ${TARGET.players}`,
      met: players <= TARGET.players,
      detail: `at most ${players}: cursor off the tiles ${worst(parked, (r) => r.videoElements)} \`<video>\` / ${worst(parked, (r) => r.livePlayers)} players; cursor over the tiles ${hovered.map((h) => `${h.tiles} tiles ${h.result.videoElements} \`<video>\` / ${h.result.livePlayers} players (${h.result.playersCreated} created on the way)`).join(", ")}`,
    },
  ];
  const stillsMissing = measured.filter((m) => m.result.stillsShown < m.tiles);
  if (stillsMissing.length) targets.push({ label: "every still shown after the scroll", met: false, detail: stillsMissing.map((m) => `${m.kind} ${m.tiles} ${m.network}: ${m.result.stillsShown}`).join(", ") });

  const all = (kind: Kind, pick: (r: VisitResult) => number) => median(measured.filter((m) => m.kind === kind).map((m) => pick(m.result)));
  const findings = [
    `First screen: the gallery's HTML is rendered on the server for each request (a dynamic page: the viewer's first 24 rows), its first byte after ${all("gallery", (r) => r.ttfbMs).toFixed(0)} ms against ${all("image grid", (r) => r.ttfbMs).toFixed(0)} ms for the grid's static HTML (medians over every visit); after that first byte, its first screen is framed in ${all("gallery", (r) => r.framedMs - r.ttfbMs).toFixed(0)} ms against ${all("image grid", (r) => r.framedMs - r.ttfbMs).toFixed(0)} ms.`,
    ...hovered.map(
      (h) =>
        `Cursor over the tiles, ${h.tiles} tiles: ${h.result.playersCreated} previews started on the way (each a muted autoplaying \`<video preload="auto">\` from the moment the pointer enters a tile), ${(h.result.bytes.video / 2 ** 20).toFixed(1)} MiB of video in all; \`<video>\` elements left in the DOM: ${h.result.videoElements}; players not yet destroyed: ${h.result.livePlayers}, and ${h.result.livePlayersAfterGc} after a forced garbage collection (a player lives until its removed element is collected).`,
    ),
  ];
  return { title: "8. Gallery at real size", setup: SETUP, figures, targets, notes: [...NOTES, ...findings] };
}

const SETUP = `Two galleries of finished generations, ${SCENARIOS.join(" and ")} tiles, each of an owner of its own. In the first, 3 are submitted through \`POST /api/generations\` (720p 16:9 and 9:16, 480p 1:1: the simulator's real-size clips, 1–2.7 MB) and copied by the app with their stills, and the rest are planted beside them sharing those stored files under copy rows of their own, as tests/e2e/gallery-real-size.spec.ts seeds it; the second is all planted copies of the same three. Every tile has its own media URLs. Baseline, the image grid: the same still URLs as plain \`<img loading="lazy" decoding="async">\` tiles, absolutely placed at the gallery's tiles' positions and sizes (read from a warm-up visit of the gallery after a full scroll, so the geometry is the same by construction) on a page as tall, with nothing else. Both pages are loaded through a reverse proxy in the bench process (bench/origin-proxy.ts) that forwards every request to \`next start\` and answers the grid's HTML itself (gzipped, with Next's headers for a dynamic page): same origin, same cookie, same six HTTP/1.1 connections, the same still responses, and no product route. Each visit is a fresh system Chromium (/usr/bin/chromium through playwright, headless, the flags of DESIGN.md, 1280×720, cold cache, navigating 0.5 s after its launch so that its start-up does not share the CPU with the page's load): ${REPEATS} rounds of every (size, network) pair, the two pages one after the other in alternating order, medians reported. SQLite only: a visit reads at most ${Math.max(...SCENARIOS)} rows in pages of 24, a read benchmark 4 measures on both engines; what this benchmark measures happens in the browser.`;

const NOTES = [
  "Bytes: from the network log (`--log-net-log`, default capture mode): every `SOCKET_BYTES_RECEIVED`, attributed to the URL request holding the socket (bench/net-log.ts), so headers and the bytes of requests Chromium cancels count, which DevTools' own counters miss. The total covers the whole visit, from navigation to the end of the scroll and a 0.5 s settle; the split is by path: `/api/media/<id>/still` (stills), `/api/media/<id>` (video), everything else (the page). Chromium's background requests go to a resolver that fails (`--host-resolver-rules`) and add nothing.",
  "Throttling: CDP `Network.emulateNetworkConditions` on the page's session before it navigates (20 Mbit/s down, 5 Mbit/s up, 40 ms latency). The network service applies it to every request of the page, media range requests included (checked on this machine: a 2.6 MB clip with `preload=auto` had 2.3 of its 5 s buffered 700 ms into a throttled load, all 5 s unthrottled). It is approximate (short peaks above the nominal rate); byte counts do not depend on it, times do.",
  "Framed: from navigation start (`performance.now()` in the page) to the first animation frame, once the document is parsed, in which every tile (`[data-still]`) intersecting the 1280×720 viewport shows a picture: its `<img>` loaded (`complete`, with a natural width) or its `<video>` at `readyState ≥ 2`. The gallery's first screen is the top of the page: the form on the left, the first row of tiles on the right.",
  "Scroll: a wheel step of two screens every 100 ms with the cursor parked at the top-left corner, off the tiles, until every tile is in the page (the gallery loads 24 more as its end nears) and the page ends; then a wait until every still shows. Chromium starts loading a lazy image 1,250 px or more before it is in view, so every still loads on the way. Players, after the scroll: `<video>` elements in the DOM, and media players created and not destroyed according to Chromium's media log (CDP `Media` domain). Once more per gallery, the same scroll with the cursor over the middle of the tiles, as a mouse user scrolls: hover previews start and stop as tiles pass under it.",
  "Memory: the proportional set size (`Pss` of /proc/<pid>/smaps_rollup) of the renderer process(es) drawing the page, named by the frames of a DevTools timeline trace (`TracingStartedInBrowser`), so the browser's spare and UI renderers are left out; after the scroll and the settle, the median of every visit of that page at that size, both networks.",
  `A screenshot of the 60-tile gallery's first screen is written to ${SCREENSHOT} at each run (git-ignored).`,
];
