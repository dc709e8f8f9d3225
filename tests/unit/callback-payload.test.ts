import { describe, expect, test } from "vitest";
import { readCallbackBody } from "@/lib/gateway/callback-payload";

const task = { taskId: "task_1", state: "SUCCESS", resultUrls: ["https://cdn.example/v.mp4"], creditsConsumed: 0.7 };

describe("readCallbackBody", () => {
  test.each([
    ["flat task", task],
    ["{code, msg, data} envelope", { code: 200, msg: "success", data: task }],
    ["resultJson as a JSON string", { code: 200, data: { taskId: "task_1", state: "success", creditsConsumed: "0.7", resultJson: JSON.stringify({ resultUrls: task.resultUrls }) } }],
    ["snake_case id and status", { task_id: "task_1", status: "SUCCESS", resultUrls: task.resultUrls, creditsConsumed: 0.7 }],
  ])("reads a %s as a complete snapshot", (_name, body) => {
    const reading = readCallbackBody(JSON.stringify(body));
    expect(reading).toMatchObject({ kind: "complete", snapshot: { taskId: "task_1", state: "SUCCESS", resultUrls: task.resultUrls, creditsConsumed: 0.7 } });
  });

  test.each([
    ["SUCCESS without result URLs", { taskId: "task_1", state: "SUCCESS", creditsConsumed: 1 }, "task_1"],
    ["SUCCESS without credits", { taskId: "task_1", state: "SUCCESS", resultUrls: task.resultUrls }, "task_1"],
    ["an unknown state", { taskId: "task_1", state: "DONE" }, "task_1"],
    ["no state at all", { id: "task_1", event: "finished" }, "task_1"],
    ["no task id", { hello: "world" }, null],
  ])("treats %s as a hint to confirm by GET", (_name, body, taskId) => {
    expect(readCallbackBody(JSON.stringify(body))).toMatchObject({ kind: "hint", taskId });
  });

  test.each([
    ["an empty string", ""],
    ["blanks", "  "],
    ["false", false],
    ["true", true],
    ["an empty array", []],
    ["an array of a number", [7]],
    ["a hex string", "0x1F"],
    ["an exponent string", "1e3"],
    ["a negative number", -1],
    ["a number past any price", 1e308],
    ["an object", { amount: 1 }],
  ])("SUCCESS whose creditsConsumed is %s is a hint, never a charge of 0 (or 1, 7, 31…)", (_name, creditsConsumed) => {
    expect(readCallbackBody(JSON.stringify({ ...task, creditsConsumed }))).toMatchObject({ kind: "hint", taskId: "task_1" });
  });

  test.each([
    [0, 0],
    [0.2816, 0.2816],
    ["0.2816", 0.2816],
    ["3", 3],
  ])("creditsConsumed %j is a charge of %d", (creditsConsumed, charged) => {
    expect(readCallbackBody(JSON.stringify({ ...task, creditsConsumed }))).toMatchObject({ kind: "complete", snapshot: { creditsConsumed: charged } });
  });

  test("drops result URLs that are not http(s)", () => {
    const reading = readCallbackBody(JSON.stringify({ ...task, resultUrls: ["javascript:alert(1)", "https://ok.example/a.mp4"] }));
    expect(reading).toMatchObject({ kind: "complete", snapshot: { resultUrls: ["https://ok.example/a.mp4"] } });
  });

  test.each(["", "null", "[1,2]", "\"text\"", "{not json"])("refuses %j as malformed", (body) => {
    expect(readCallbackBody(body).kind).toBe("malformed");
  });
});

describe("result URLs per task", () => {
  const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://cdn.example/v${i}.mp4`);

  test.each([
    [1, 1, 0],
    [16, 16, 0],
    [17, 16, 1],
    [200, 16, 184],
  ])("%i named: %i kept (the first ones, in order), %i counted as dropped", (named, kept, dropped) => {
    const reading = readCallbackBody(JSON.stringify({ ...task, resultUrls: urls(named) }));
    expect(reading).toMatchObject({ kind: "complete", snapshot: { resultUrls: urls(kept), droppedResultUrls: dropped } });
  });

  test("URLs that are not http(s) are neither kept nor counted", () => {
    const reading = readCallbackBody(JSON.stringify({ ...task, resultUrls: ["javascript:alert(1)", ...urls(16), "file:///etc/passwd"] }));
    expect(reading).toMatchObject({ kind: "complete", snapshot: { resultUrls: urls(16), droppedResultUrls: 0 } });
  });
});
