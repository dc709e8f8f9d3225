import { describe, expect, test } from "vitest";
import { readCallbackBody } from "@/lib/gateway/callback-payload";
import { boundedMetadata, METADATA_MAX_BYTES, METADATA_MAX_DEPTH, type TaskSnapshot } from "@/lib/gateway/task";

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

/** `task` as JSON text with one more field, written as text: `value` may be too deep for JSON.stringify. */
const withField = (name: string, valueJson: string) => `${JSON.stringify(task).slice(0, -1)},${JSON.stringify(name)}:${valueJson}}`;
const nested = (levels: number, inner = "0") => `${"[".repeat(levels)}${inner}${"]".repeat(levels)}`;

describe("the task's other fields (metadata)", () => {
  test.each([
    ["30,000 levels of arrays (59 KB)", nested(30_000)],
    ["6,000 levels of objects", `${'{"a":'.repeat(6_000)}0${"}".repeat(6_000)}`],
    ["one level past the bound", nested(METADATA_MAX_DEPTH + 1)],
    ["a 20 KB string", JSON.stringify("x".repeat(20_000))],
    ["an array of 5,000 numbers", JSON.stringify(Array.from({ length: 5_000 }, (_, i) => i))],
  ])("a field of %s is dropped; the task is complete and the small fields beside it are kept", (_name, valueJson) => {
    const body = `${withField("trace", valueJson).slice(0, -1)},"progress":100,"param":{"model":"m","input":{"prompt":"p"}}}`;
    const reading = readCallbackBody(body);
    expect(reading).toMatchObject({ kind: "complete", snapshot: { taskId: "task_1", state: "SUCCESS", creditsConsumed: 0.7 } });
    const { metadata } = (reading as { snapshot: TaskSnapshot }).snapshot;
    expect(metadata).toEqual({ progress: 100, param: { model: "m", input: { prompt: "p" } } });
    expect(Buffer.byteLength(JSON.stringify(metadata))).toBeLessThanOrEqual(METADATA_MAX_BYTES);
  });

  test("a field nested as deep as the bound is kept whole", () => {
    const reading = readCallbackBody(withField("trace", nested(METADATA_MAX_DEPTH, '"leaf"')));
    expect((reading as { snapshot: TaskSnapshot }).snapshot.metadata).toEqual({ trace: JSON.parse(nested(METADATA_MAX_DEPTH, '"leaf"')) });
  });

  test("fields are kept in order until the budget is spent, and each kept one whole", () => {
    const fields = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`f${i}`, "y".repeat(400)]));
    const metadata = boundedMetadata(fields);
    const text = JSON.stringify(metadata);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(METADATA_MAX_BYTES);
    const kept = Object.keys(metadata).length;
    expect(Object.keys(metadata)).toEqual(Object.keys(fields).slice(0, kept));
    // The first field left out would not have fitted.
    expect(Buffer.byteLength(JSON.stringify(Object.fromEntries(Object.entries(fields).slice(0, kept + 1))))).toBeGreaterThan(METADATA_MAX_BYTES);
  });

  test("a field named __proto__ stays a field", () => {
    const metadata = boundedMetadata(JSON.parse('{"__proto__":{"polluted":true},"progress":1}') as Record<string, unknown>);
    expect(Object.getPrototypeOf(metadata)).toBe(Object.prototype);
    expect(Object.keys(metadata)).toEqual(["__proto__", "progress"]);
  });
});
