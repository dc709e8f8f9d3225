// The gateway API as the spec names it: endpoints, Bearer auth, validation
// errors that name the field, and JSON error bodies with a code and a message.
import { afterAll, describe, expect, test } from "vitest";
import { inputs, launchSimulator, marker, waitFor } from "./harness";

const sim = await launchSimulator({ SIMULATOR_PENDING_MS: "300", SIMULATOR_PENDING_JITTER_MS: "0" });
afterAll(() => sim.stop());

const errorBody = { code: expect.any(String), message: expect.any(String) };

describe("authentication", () => {
  const calls = [
    ["POST /api/generate", "/api/generate", "POST"],
    ["GET /api/generate/{taskId}", "/api/generate/task_000", "GET"],
    ["GET /api/credits", "/api/credits", "GET"],
  ] as const;
  const keys = [
    ["no Authorization header", null],
    ["a wrong key", "not-the-key"],
    ["the key with a different case", "SIM-DEV-KEY"],
    ["the key plus a character", "sim-dev-key2"],
  ] as const;

  test.each(calls.flatMap(([name, path, method]) => keys.map(([what, key]) => [name, what, path, method, key] as const)))(
    "%s with %s → 401 {code, message}",
    async (_name, _what, path, method, key) => {
      const response = await sim.api(path, { method, key, json: method === "POST" ? { model: "alpha-2.5-text-to-video", input: { prompt: "x" } } : undefined });
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ code: "unauthorized", message: expect.any(String) });
    },
  );

  test("a key without the Bearer scheme → 401", async () => {
    const response = await fetch(`${sim.url}/api/credits`, { headers: { Authorization: "sim-dev-key" } });
    expect(response.status).toBe(401);
  });

  test("a refused submit creates no task", async () => {
    const m = marker("auth");
    await sim.submit(inputs.text(`no key ${m}`), { key: "wrong" });
    expect(await sim.control.tasks(m)).toEqual([]);
  });
});

describe("POST /api/generate", () => {
  test("answers 200 with exactly {taskId}", async () => {
    const { status, body } = await sim.submit(inputs.text(`a fox ${marker("submit")}`));
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["taskId"]);
    expect(body.taskId).toMatch(/^task_[0-9a-f]{24}$/);
  });

  test("task ids are unique", async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, (_, i) => sim.submit(inputs.text(`n${i} ${marker("ids")}`)).then((r) => r.taskId)));
    expect(new Set(ids).size).toBe(10);
  });

  test("an unlisted model → 422 naming the model", async () => {
    const { status, body } = await sim.submit(inputs.text("x"), { model: "omega-9/unlisted-model" });
    expect(status).toBe(422);
    expect(body).toEqual({ code: "unknown_model", field: "model", message: expect.stringContaining("omega-9/unlisted-model") });
  });

  const invalid: [string, string, Record<string, unknown>, string][] = [
    ["no model", "", { prompt: "x" }, "model"],
    ["no prompt", "alpha-2.5-text-to-video-480p", {}, "input.prompt"],
    ["an empty prompt", "alpha-2.5-text-to-video-480p", { prompt: "   " }, "input.prompt"],
    ["a prompt over 5000 characters", "alpha-2.5-text-to-video-480p", { prompt: "x".repeat(5001) }, "input.prompt"],
    ["a duration of 0", "alpha-2.5-text-to-video-480p", { prompt: "x", duration: 0 }, "input.duration"],
    ["a fractional duration", "alpha-2.5-text-to-video-480p", { prompt: "x", duration: 2.5 }, "input.duration"],
    ["a duration of 31 s", "alpha-2.5-text-to-video-480p", { prompt: "x", duration: 31 }, "input.duration"],
    ["a duration as a string", "alpha-2.5-text-to-video-480p", { prompt: "x", duration: "5" }, "input.duration"],
    ["first-last-frame without a first frame", "alpha-2.5-first-last-frame-480p", { prompt: "x", last_frame_url: "https://e.com/l.png" }, "input.first_frame_url"],
    ["first-last-frame with a non-URL last frame", "alpha-2.5-first-last-frame-480p", { prompt: "x", first_frame_url: "https://e.com/f.png", last_frame_url: "l.png" }, "input.last_frame_url"],
    ["reference-to-video without references", "delta-h3/reference-to-video", { prompt: "x" }, "input.reference_video_urls"],
    ["reference-to-video with an empty list", "beta-1-1/reference-to-video", { prompt: "x", reference_video_urls: [] }, "input.reference_video_urls"],
    ["reference-to-video with a non-http URL", "gamma/reference-to-video", { prompt: "x", reference_video_urls: ["ftp://e.com/r.mp4"] }, "input.reference_video_urls"],
  ];
  test.each(invalid)("%s → 422 naming %s", async (_what, model, input, field) => {
    const response = await sim.api("/api/generate", { json: { model: model || undefined, input } });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ code: "invalid_input", field, message: expect.stringContaining(field) });
  });

  test("input that is not an object → 422 naming input", async () => {
    const response = await sim.api("/api/generate", { json: { model: "alpha-2.5-text-to-video", input: "a fox" } });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "invalid_input", field: "input" });
  });

  test("a webhook_url that is not http(s) → 422 naming webhook_url", async () => {
    const response = await sim.api("/api/generate", { json: { model: "alpha-2.5-text-to-video", input: { prompt: "x" }, webhook_url: "javascript:alert(1)" } });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "invalid_input", field: "webhook_url" });
  });

  test.each([
    ["a body that is not JSON", "{not json", 400],
    ["a JSON array", "[]", 400],
    ["a body over 1 MB", JSON.stringify({ model: "alpha-2.5-text-to-video", input: { prompt: "x".repeat(1_100_000) } }), 413],
  ])("%s → an error {code, message}", async (_what, raw, status) => {
    const response = await fetch(`${sim.url}/api/generate`, { method: "POST", headers: { Authorization: "Bearer sim-dev-key", "Content-Type": "application/json" }, body: raw });
    expect(response.status).toBe(status);
    expect(await response.json()).toEqual(errorBody);
  });
});

describe("GET /api/generate/{taskId}", () => {
  test("PENDING with progress and createTime, then SUCCESS with resultUrls, creditsConsumed and completeTime", async () => {
    const m = marker("view");
    await sim.control.scenario({ match: m, pendingMs: 1500 }); // long enough to be seen PENDING on a loaded machine
    const prompt = `a paper boat ${m}`;
    const { taskId } = await sim.submit(inputs.text(prompt, 4));
    const pending = await sim.task(taskId);
    expect(pending).toMatchObject({ taskId, state: "PENDING", resultUrls: [], creditsConsumed: 0, failCode: null, failMsg: null, completeTime: null });
    expect(pending.progress).toBeGreaterThanOrEqual(0);
    expect(pending.progress).toBeLessThan(100);
    expect(Date.parse(pending.createTime)).toBeGreaterThan(Date.now() - 5000);

    const done = await waitFor(async () => {
      const task = await sim.task(taskId);
      return task.state !== "PENDING" && task;
    });
    expect(done).toMatchObject({ taskId, state: "SUCCESS", creditsConsumed: 0.5632, progress: 100, failCode: null, param: { prompt } });
    expect(done.resultUrls).toEqual([expect.stringMatching(new RegExp(`^${sim.url}/media/${taskId}/clip-480p-16x9-[a-z]+\\.mp4$`))]);
    expect(Date.parse(done.completeTime!)).toBeGreaterThanOrEqual(Date.parse(done.createTime) + 1500);
    // Still retrievable afterwards: polling is the fallback for a lost callback.
    expect(await sim.task(taskId)).toEqual(done);
  });

  test("progress grows while PENDING", async () => {
    const m = marker("progress");
    // Pending for longer than any wait below, so the task is still running when read again.
    await sim.control.scenario({ match: m, pendingMs: 120_000 });
    const { taskId } = await sim.submit(inputs.text(`progress ${m}`));
    const first = await sim.task(taskId);
    const later = await waitFor(async () => {
      const task = await sim.task(taskId);
      return task.progress > first.progress && task;
    }, 60_000, "the task's progress to grow");
    expect(later.state).toBe("PENDING");
    expect(later.progress).toBeGreaterThan(first.progress);
    expect(later.progress).toBeLessThan(100);
  });

  test("an unknown task → 404 {code, message}", async () => {
    const response = await sim.api("/api/generate/task_doesnotexist");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: "task_not_found", message: expect.stringContaining("task_doesnotexist") });
  });
});

describe("GET /api/credits", () => {
  test("answers {credits, held}", async () => {
    const response = await sim.api("/api/credits");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ credits: expect.any(Number), held: expect.any(Number) });
  });
});

describe("other requests", () => {
  test.each([
    ["GET", "/api/generate", "POST"],
    ["PUT", "/api/generate", "POST"],
    ["POST", "/api/credits", "GET"],
    ["DELETE", "/api/generate/task_x", "GET"],
  ])("%s %s → 405 with Allow: %s", async (method, path, allow) => {
    const response = await sim.api(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe(allow);
    expect(await response.json()).toEqual({ code: "method_not_allowed", message: expect.any(String) });
  });

  test("an unknown route → 404 {code, message}", async () => {
    const response = await sim.api("/api/v2/generate");
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: "not_found", message: expect.any(String) });
  });

  test("an unknown control route → 404 {code, message}", async () => {
    const response = await fetch(`${sim.url}/__control/nothing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(errorBody);
  });

  test("an invalid scenario → 422 naming the field", async () => {
    const response = await fetch(`${sim.url}/__control/scenarios`, { method: "POST", body: JSON.stringify({ outcome: "maybe" }) });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "invalid_control_request", field: "outcome" });
  });

  test("a misspelt scenario field is refused rather than ignored", async () => {
    const response = await fetch(`${sim.url}/__control/scenarios`, { method: "POST", body: JSON.stringify({ outcom: "failure" }) });
    expect(response.status).toBe(422);
  });
});
