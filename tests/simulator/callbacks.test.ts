// Callbacks to webhook_url on the terminal state: at least once, retried with
// exponential backoff on non-2xx or timeout, duplicated, dropped, delayed, out
// of order, in three body shapes.
import { afterAll, beforeEach, describe, expect, test } from "vitest";
import { inputs, launchSimulator, marker, sleep, startReceiver, waitFor, type Hit } from "./harness";

// Backoff 100 ms (so retries come at +100, +200, +400 ms) and a 300 ms timeout keep this file fast.
const sim = await launchSimulator({
  SIMULATOR_PENDING_MS: "50",
  SIMULATOR_PENDING_JITTER_MS: "0",
  SIMULATOR_CALLBACK_BACKOFF_MS: "100",
  SIMULATOR_CALLBACK_TIMEOUT_MS: "300",
});
const receiver = await startReceiver();
afterAll(async () => {
  sim.stop();
  await receiver.close();
});
beforeEach(async () => {
  await sim.control.reset();
  receiver.reset();
});

/** Submits a task with a webhook_url of its own and returns it with the hits its URL receives. */
async function submitWithWebhook(label: string, scenario?: Parameters<typeof sim.control.scenario>[0]) {
  const m = marker(label);
  if (scenario) await sim.control.scenario({ ...scenario, match: m });
  const url = receiver.url(m);
  const { taskId, status } = await sim.submit(inputs.text(`callback ${m}`, 2), { webhook_url: url });
  expect(status).toBe(200);
  const hits = () => receiver.hits.filter((h) => h.body && JSON.stringify(h.body).includes(taskId));
  return { m, taskId, hits, waitHits: (n: number, timeoutMs = 60_000) => waitFor(() => hits().length >= n && hits(), timeoutMs) };
}

const gaps = (hits: Hit[]) => hits.slice(1).map((h, i) => h.at - hits[i]!.at);

describe("delivery", () => {
  test("one POST of the flat task on SUCCESS, the same task that polling returns", async () => {
    const { taskId, waitHits, hits } = await submitWithWebhook("flat");
    const [hit] = await waitHits(1);
    expect(hit!.method).toBe("POST");
    expect(hit!.contentType).toBe("application/json");
    const polled = await sim.task(taskId);
    expect(hit!.body).toEqual({ ...polled, progress: 100 });
    expect(hit!.body).toMatchObject({ taskId, state: "SUCCESS", creditsConsumed: 0.2816, resultUrls: [expect.stringContaining(`/media/${taskId}/`)] });
    await sleep(300);
    expect(hits()).toHaveLength(1);
  });

  test("a FAILURE is called back too, with failCode and failMsg and 0 credits", async () => {
    const { taskId, waitHits } = await submitWithWebhook("failure", { outcome: "failure", failCode: "nsfw", failMsg: "Refused." });
    const [hit] = await waitHits(1);
    expect(hit!.body).toMatchObject({ taskId, state: "FAILURE", failCode: "nsfw", failMsg: "Refused.", creditsConsumed: 0, resultUrls: [] });
  });

  test("without webhook_url nothing is sent", async () => {
    const m = marker("nohook");
    const { taskId } = await sim.submit(inputs.text(`silent ${m}`, 1));
    await waitFor(async () => (await sim.task(taskId)).state === "SUCCESS");
    await sleep(200);
    expect(receiver.hits).toHaveLength(0);
    expect(await sim.control.callbacks(m)).toEqual([]);
  });
});

describe("body shapes", () => {
  test("envelope: {code, msg, data: task}", async () => {
    const { taskId, waitHits } = await submitWithWebhook("envelope", { callback: { shape: "envelope" } });
    const [hit] = await waitHits(1);
    expect(hit!.body).toEqual({ code: 200, msg: "success", data: expect.objectContaining({ taskId, state: "SUCCESS", resultUrls: [expect.any(String)] }) });
  });

  test("resultJson: the result URLs as a JSON string inside data", async () => {
    const { taskId, waitHits } = await submitWithWebhook("resultjson", { callback: { shape: "resultJson" } });
    const [hit] = await waitHits(1);
    const data = hit!.body.data as Record<string, unknown>;
    expect(data).toMatchObject({ taskId, state: "SUCCESS", creditsConsumed: 0.2816 });
    expect(data).not.toHaveProperty("resultUrls");
    expect(typeof data.resultJson).toBe("string");
    const polled = await sim.task(taskId);
    expect(JSON.parse(data.resultJson as string)).toEqual({ resultUrls: polled.resultUrls });
  });

  test("SIMULATOR_CALLBACK_SHAPE sets the shape when no scenario does", async () => {
    await sim.control.configure({ SIMULATOR_CALLBACK_SHAPE: "envelope" });
    const { waitHits } = await submitWithWebhook("shape-env");
    const [hit] = await waitHits(1);
    expect(hit!.body).toMatchObject({ code: 200, msg: "success", data: { state: "SUCCESS" } });
  });
});

describe("retries", () => {
  test("a 500 is retried with backoff until a 2xx, then no more", async () => {
    receiver.answer(500, 500);
    const { m, waitHits, hits } = await submitWithWebhook("retry");
    const got = await waitHits(3);
    const [first, second] = gaps(got);
    expect(first).toBeGreaterThanOrEqual(90);
    expect(second).toBeGreaterThanOrEqual(190);
    expect(second).toBeGreaterThan(first!);
    // The simulator's record says what is still to come: after the 2xx, nothing.
    const attempts = await waitFor(async () => {
      const recorded = await sim.control.callbacks(m);
      return recorded.length === 3 && recorded;
    });
    expect(attempts.map((a) => [a.attempt, a.status, a.retryInMs])).toEqual([
      [1, 500, 100],
      [2, 500, 200],
      [3, 200, null],
    ]);
    expect(hits()).toHaveLength(3);
  });

  test("a receiver that always fails gets 1 + SIMULATOR_CALLBACK_RETRIES (3) attempts at doubling intervals", async () => {
    receiver.always(500);
    const { m, waitHits, hits } = await submitWithWebhook("giveup");
    const got = await waitHits(4);
    const [a, b, c] = gaps(got) as [number, number, number];
    expect(a).toBeGreaterThanOrEqual(90);
    expect(b).toBeGreaterThanOrEqual(190);
    expect(c).toBeGreaterThanOrEqual(390);
    expect(b).toBeGreaterThan(a);
    expect(c).toBeGreaterThan(b);
    // The fourth attempt is the last one the simulator scheduled: it gave up.
    const attempts = await waitFor(async () => {
      const recorded = await sim.control.callbacks(m);
      return recorded.length === 4 && recorded;
    });
    expect(attempts.map((x) => [x.status, x.retryInMs])).toEqual([
      [500, 100],
      [500, 200],
      [500, 400],
      [500, null],
    ]);
    expect(hits()).toHaveLength(4);
  });

  test("a receiver that does not answer in SIMULATOR_CALLBACK_TIMEOUT_MS counts as a failure and is retried", async () => {
    receiver.answer("hang");
    const { m, waitHits } = await submitWithWebhook("timeout");
    const got = await waitHits(2);
    expect(gaps(got)[0]).toBeGreaterThanOrEqual(300 + 100 - 10); // timeout, then backoff
    await waitFor(async () => (await sim.control.callbacks(m)).length === 2);
    expect((await sim.control.callbacks(m)).map((x) => x.status)).toEqual(["timeout", 200]);
  });

  test("an unreachable webhook_url is retried and recorded as a connection error", async () => {
    const m = marker("unreachable");
    await sim.control.scenario({ match: m, callback: { retries: 1 } });
    await sim.submit(inputs.text(`nobody home ${m}`, 1), { webhook_url: "http://127.0.0.1:9/hook" });
    const attempts = await waitFor(async () => {
      const list = await sim.control.callbacks(m);
      return list.length === 2 && list;
    });
    expect(attempts.map((a) => a.status)).toEqual(["connection error", "connection error"]);
  });

  test("a scenario sets its own retries and backoff", async () => {
    receiver.always(500);
    const { m, waitHits, hits } = await submitWithWebhook("custom-retry", { callback: { retries: 1, backoffMs: 250 } });
    const got = await waitHits(2);
    expect(gaps(got)[0]).toBeGreaterThanOrEqual(240);
    // The simulator's record of the second attempt: refused, and no retry scheduled after it.
    const attempts = await waitFor(async () => {
      const recorded = await sim.control.callbacks(m);
      return recorded.length === 2 && recorded;
    });
    expect(attempts.map((a) => [a.attempt, a.status, a.retryInMs])).toEqual([
      [1, 500, 250],
      [2, 500, null],
    ]);
    expect(hits()).toHaveLength(2);
  });
});

describe("duplicates, drops, delays, order", () => {
  test("duplicates: the same terminal event arrives 1 + n times", async () => {
    const { waitHits, hits } = await submitWithWebhook("dups", { callback: { duplicates: 3 } });
    await waitHits(4);
    await sleep(200);
    expect(hits()).toHaveLength(4);
    expect(new Set(hits().map((h) => JSON.stringify(h.body))).size).toBe(1);
  });

  test("SIMULATOR_CALLBACK_DUPLICATES sets the default number of copies", async () => {
    await sim.control.configure({ SIMULATOR_CALLBACK_DUPLICATES: 1 });
    const { waitHits } = await submitWithWebhook("dups-env");
    expect(await waitHits(2)).toHaveLength(2);
  });

  test("each copy is retried on its own", async () => {
    receiver.answer(500);
    const { m, waitHits } = await submitWithWebhook("dup-retry", { callback: { duplicates: 1 } });
    await waitHits(3);
    const attempts = await sim.control.callbacks(m);
    expect(attempts.filter((a) => a.status === 200).map((a) => a.copy).sort()).toEqual([1, 2]);
  });

  test("drop: never sent, while polling still shows the outcome", async () => {
    const { m, taskId, hits } = await submitWithWebhook("drop", { callback: { mode: "drop" } });
    await waitFor(async () => (await sim.task(taskId)).state === "SUCCESS");
    await sleep(300);
    expect(hits()).toHaveLength(0);
    expect(await sim.control.callbacks(m)).toEqual([]);
  });

  test("SIMULATOR_CALLBACK_DROP_RATE 1 drops every callback, except where a scenario says deliver", async () => {
    await sim.control.configure({ SIMULATOR_CALLBACK_DROP_RATE: 1 });
    const dropped = await submitWithWebhook("droprate");
    const delivered = await submitWithWebhook("deliver", { callback: { mode: "deliver" } });
    await delivered.waitHits(1);
    await sleep(300);
    expect(dropped.hits()).toHaveLength(0);
  });

  test("delay: the first attempt comes delayMs after completion", async () => {
    const { taskId, waitHits } = await submitWithWebhook("delay", { callback: { delayMs: 500 } });
    const [hit] = await waitHits(1);
    const task = await sim.task(taskId);
    expect(hit!.at - Date.parse(task.completeTime!)).toBeGreaterThanOrEqual(490);
  });

  test("SIMULATOR_CALLBACK_DELAY_MS sets the default delay", async () => {
    await sim.control.configure({ SIMULATOR_CALLBACK_DELAY_MS: 400 });
    const { taskId, waitHits } = await submitWithWebhook("delay-env");
    const [hit] = await waitHits(1);
    expect(hit!.at - Date.parse((await sim.task(taskId)).completeTime!)).toBeGreaterThanOrEqual(390);
  });

  test("out of order: a stale PENDING event arrives after the terminal one", async () => {
    const { m, taskId, waitHits } = await submitWithWebhook("order", { callback: { outOfOrder: true } });
    const got = await waitHits(2);
    expect(got.map((h) => h.body.state)).toEqual(["SUCCESS", "PENDING"]);
    expect(got[1]!.body).toMatchObject({ taskId, resultUrls: [], completeTime: null });
    expect((await sim.control.callbacks(m)).map((a) => a.state)).toEqual(["SUCCESS", "PENDING"]);
    expect((await sim.task(taskId)).state).toBe("SUCCESS"); // the task itself did not go back
  });

  test("SIMULATOR_CALLBACK_OUT_OF_ORDER sends the stale event by default", async () => {
    await sim.control.configure({ SIMULATOR_CALLBACK_OUT_OF_ORDER: true });
    const { waitHits } = await submitWithWebhook("order-env");
    expect((await waitHits(2)).map((h) => h.body.state)).toEqual(["SUCCESS", "PENDING"]);
  });

  test("reset cancels callbacks still waiting to be sent", async () => {
    // The callback waits 3 s after the task ends: the reset comes well inside that on a
    // loaded machine, and nothing may arrive in the second after it was due.
    const { taskId, hits } = await submitWithWebhook("cancel", { callback: { delayMs: 3_000 } });
    await waitFor(async () => (await sim.task(taskId)).state === "SUCCESS", 60_000, "the task to end");
    await sim.control.reset();
    await sleep(4_000);
    expect(hits()).toHaveLength(0);
  });
});
