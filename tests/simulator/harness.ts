// Contract-test harness: a simulator process of the test file's own (its env,
// a free port) driven over HTTP, and a webhook receiver that records every
// callback and answers 200, 500 or nothing on demand.
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { image } from "../support/media-fixtures";
import { startSimulator } from "../support/global-setup";
import { SimulatorControl } from "../support/simulator-control";

export const API_KEY = "sim-dev-key";

export async function launchSimulator(env: Record<string, string> = {}) {
  const { url, child } = await startSimulator({ SIMULATOR_LOG: "quiet", SIMULATOR_API_KEY: API_KEY, ...env });
  const output: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(...chunk.toString().split("\n").filter(Boolean)));
  return {
    url,
    control: new SimulatorControl(url),
    /** Log lines printed since start. */
    output,
    /** A gateway API call with the account's key unless `key` says otherwise (null: no header). */
    api(path: string, init: { method?: string; json?: unknown; key?: string | null; headers?: Record<string, string> } = {}) {
      const key = init.key === undefined ? API_KEY : init.key;
      return fetch(new URL(path, url), {
        method: init.method ?? (init.json === undefined ? "GET" : "POST"),
        headers: {
          ...(key === null ? {} : { Authorization: `Bearer ${key}` }),
          ...(init.json === undefined ? {} : { "Content-Type": "application/json" }),
          ...init.headers,
        },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      });
    },
    async submit(input: Record<string, unknown>, extra: { model?: string; webhook_url?: string; key?: string } = {}) {
      const { key, model = "alpha-2.5-text-to-video-480p", ...rest } = extra;
      const response = await this.api("/api/generate", { json: { model, input, ...rest }, key });
      const body = (await response.json()) as { taskId?: string; code?: string; message?: string };
      return { status: response.status, body, taskId: body.taskId!, headers: response.headers };
    },
    async task(taskId: string) {
      const response = await this.api(`/api/generate/${taskId}`);
      return (await response.json()) as Task;
    },
    async credits() {
      return (await (await this.api("/api/credits")).json()) as { credits: number; held: number };
    },
    /** Stops the simulator's process for `ms` (SIGSTOP, then SIGCONT), as a starved machine would. */
    async pause(ms: number) {
      child.kill("SIGSTOP");
      await new Promise((resolve) => setTimeout(resolve, ms));
      child.kill("SIGCONT");
    },
    stop() {
      child.kill("SIGTERM");
    },
  };
}

export type Task = {
  taskId: string;
  state: "PENDING" | "SUCCESS" | "FAILURE";
  resultUrls: string[];
  creditsConsumed: number;
  failCode: string | null;
  failMsg: string | null;
  progress: number;
  createTime: string;
  completeTime: string | null;
  [key: string]: unknown;
};

export type Hit = { at: number; method: string; contentType: string | undefined; body: Record<string, unknown> };
type Answer = 200 | 500 | "hang";

export async function startReceiver() {
  const hits: Hit[] = [];
  const plan: Answer[] = [];
  let fallback: Answer = 200;
  const server = http.createServer(async (req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    hits.push({ at, method: req.method ?? "?", contentType: req.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString() || "{}") });
    const answer = plan.shift() ?? fallback;
    if (answer === "hang") return; // never answer: the sender's timeout has to fire
    res.writeHead(answer, { "Content-Type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    hits,
    /** A distinct callback URL per test, so each test reads only its own hits. */
    url: (name: string) => `${base}/hook/${name}`,
    /** The next answers, in order; afterwards `always` (200 unless changed). */
    answer(...answers: Answer[]) {
      plan.push(...answers);
    },
    always(answer: Answer) {
      fallback = answer;
    },
    reset() {
      plan.length = 0;
      fallback = 200;
      hits.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export { waitFor } from "../support/wait";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let counter = 0;
/** A marker unique to this test: scenarios and read-backs are keyed by it. */
export const marker = (label: string) => `[${label}-${process.pid}-${++counter}]`;

/**
 * Input files the simulator can fetch (it fetches every input URL of a task,
 * as a real gateway does): a PNG frame, an MP4 clip, and whatever else a test
 * serves with `inputFiles.set(path, bytes)`.
 */
export const inputFiles = new Map<string, Buffer>([
  ["/first.png", image({ width: 320, height: 240 })],
  ["/last.png", image({ width: 320, height: 240 })],
  ["/ref.mp4", fs.readFileSync(path.join(import.meta.dirname, "../../simulator/media/sample-1.mp4"))],
]);
const inputServer = http.createServer((req, res) => {
  const body = inputFiles.get(new URL(req.url ?? "/", "http://x").pathname);
  if (!body) return res.writeHead(404).end("no such file");
  res.writeHead(200, { "Content-Length": body.length }).end(body);
});
await new Promise<void>((resolve) => inputServer.listen(0, "127.0.0.1", resolve));
inputServer.unref();
export const inputBase = `http://127.0.0.1:${(inputServer.address() as AddressInfo).port}`;

/** Valid inputs for each model kind. */
export const inputs = {
  text: (prompt: string, duration?: number) => ({ prompt, ...(duration === undefined ? {} : { duration }) }),
  frames: (prompt: string, duration?: number) => ({
    prompt,
    first_frame_url: `${inputBase}/first.png`,
    last_frame_url: `${inputBase}/last.png`,
    ...(duration === undefined ? {} : { duration }),
  }),
  reference: (prompt: string, duration?: number) => ({ prompt, reference_video_urls: [`${inputBase}/ref.mp4`], ...(duration === undefined ? {} : { duration }) }),
};
