// The simulated account charges each task once: whichever of its timer, a
// status GET and the control API settles it first, and never a task that was
// still running when the account was reset.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { image } from "../support/media-fixtures";
import { inputs, launchSimulator, marker, waitFor } from "./harness";

const sim = await launchSimulator({ SIMULATOR_START_CREDITS: "50", SIMULATOR_PENDING_MS: "60000", SIMULATOR_PENDING_JITTER_MS: "0" });

/** Input files whose answers wait until the test releases them: a task stays in its input fetch as long as the test wants. */
const held: { path: string; answer: (status: 200 | 404) => void }[] = [];
const frame = image({ width: 320, height: 240 });
const inputServer = http.createServer((req, res) => {
  held.push({ path: req.url ?? "/", answer: (status) => (status === 200 ? res.writeHead(200, { "Content-Length": frame.length }).end(frame) : res.writeHead(404).end("gone")) });
});
await new Promise<void>((resolve) => inputServer.listen(0, "127.0.0.1", resolve));
const inputBase = `http://127.0.0.1:${(inputServer.address() as AddressInfo).port}`;

afterAll(() => {
  sim.stop();
  inputServer.closeAllConnections();
  inputServer.close();
});
beforeEach(() => sim.control.reset());

describe("one charge per task", () => {
  test("tasks settled by their timer, status GETs and the control API at once are each charged once", async () => {
    const m = marker("race");
    await sim.control.scenario({ match: m, pendingMs: 150 });
    const submitted = await Promise.all(Array.from({ length: 8 }, (_, i) => sim.submit(inputs.text(`race ${i} ${m}`, 2))));
    expect(submitted.map((s) => s.status)).toEqual(Array(8).fill(200));
    // Every path that settles a task, many times over, while the timers come due.
    await Promise.all([
      ...submitted.flatMap(({ taskId }) => Array.from({ length: 5 }, () => sim.task(taskId))),
      ...Array.from({ length: 5 }, () => sim.control.settle(m)),
      waitFor(async () => (await sim.control.tasks(m)).every((t) => t.state === "SUCCESS")),
    ]);
    await Promise.all(submitted.map(({ taskId }) => sim.task(taskId)));
    const tasks = await sim.control.tasks(m);
    expect(tasks.map((t) => t.creditsConsumed)).toEqual(Array(8).fill(0.2816));
    const after = await sim.credits();
    expect(after.held).toBe(0);
    expect(50 - after.credits).toBeCloseTo(8 * 0.2816, 4);
  });

  test("a task still fetching its inputs at a reset never charges or releases anything in the new account", async () => {
    const m = marker("stale");
    // Due at once: their timers fire while the inputs are still on their way.
    await sim.control.scenario({ match: m, pendingMs: 1 });
    const frames = (prompt: string) => ({ prompt, first_frame_url: `${inputBase}/first.png`, last_frame_url: `${inputBase}/last.png`, duration: 5 });
    const one = await sim.submit(frames(`one ${m}`), { model: "alpha-2.5-first-last-frame-480p" });
    const other = await sim.submit(frames(`other ${m}`), { model: "alpha-2.5-first-last-frame-480p" });
    expect([one.status, other.status]).toEqual([200, 200]);
    await waitFor(() => held.length === 2);
    expect(await sim.credits()).toEqual({ credits: 50, held: 1.408 });

    await sim.control.reset(20);
    // One task gets both its frames (a success to charge), the other none (a failure that releases its hold).
    const [first, second] = held.splice(0);
    first!.answer(200);
    second!.answer(404);
    await waitFor(() => held.length === 1);
    held.splice(0)[0]!.answer(200);
    // The simulator records the fetches of a task as they end, just before it settles the task.
    await waitFor(async () => (await sim.control.inputs()).filter((f) => f.url.startsWith(inputBase)).length === 3);
    await sim.control.settle(m);
    expect(await sim.credits()).toEqual({ credits: 20, held: 0 });
    expect(await sim.control.tasks(m)).toEqual([]);
  });
});
