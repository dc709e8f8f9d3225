// A task completes at its due time, never before: Node's timers run on a
// monotonic clock and may fire a millisecond before Date.now reaches the due
// time, and a task settled then reported a completeTime 1 ms short of its
// pendingMs (lifecycle's "pendingMs sets how long this marker's tasks stay
// PENDING" failed once so on CI). The gateway class runs in this process here,
// with Vitest's fake clock moved behind its timers.
import { afterEach, expect, test, vi } from "vitest";
import { loadConfig } from "@/simulator/config";
import { SimulatedGateway, type Task } from "@/simulator/gateway";

afterEach(() => vi.useRealTimers());

test("a timer that fires before the wall clock reaches the due time leaves the task PENDING until it does", async () => {
  vi.useFakeTimers({ now: Date.parse("2026-11-28T12:00:00.000Z") });
  const settled: Task[] = [];
  const gateway = new SimulatedGateway(loadConfig({}), () => "http://127.0.0.1:1", (task) => settled.push(task), () => "clip.mp4");
  const task = gateway.submit({ model: "alpha-2.5-text-to-video-480p", input: { prompt: "a lighthouse", duration: 5 }, webhookUrl: null, scenario: { id: 1, used: 0, match: "due", pendingMs: 900 } });
  if (!("taskId" in task)) throw new Error(`refused: ${task.message}`);

  // The wall clock falls 3 ms behind the timers, as it may against a monotonic clock.
  vi.setSystemTime(Date.now() - 3);
  await vi.advanceTimersByTimeAsync(900);
  expect(Date.now()).toBe(task.completeAt - 3);
  expect(task.state).toBe("PENDING");

  await vi.advanceTimersByTimeAsync(3);
  expect(task.state).toBe("SUCCESS");
  expect(task.completedAt! - task.createdAt).toBe(900);
  expect(settled).toEqual([task]);
});
