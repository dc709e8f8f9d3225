// The drain's bookkeeping (lib/lifecycle/drain.ts): each hook runs once, the
// work's (hand-backs) before the connections' (streams: Next exits when the
// last one ends), an unregistered one never, a late one at once, and a
// failing hook stops none of the others. The SIGTERM path on the real server
// is in tests/integration/readiness-and-shutdown.test.ts.
import { expect, test, vi } from "vitest";
import { drain, isDraining, onDrain } from "@/lib/lifecycle/drain";

test("work is handed back before connections end; each hook once; unregistered never; late at once; a failure stops no other", async () => {
  const ran: string[] = [];
  onDrain(() => void ran.push("stream"), "connections");
  const forget = onDrain(() => void ran.push("finished copy"));
  forget();
  const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
  onDrain(() => {
    throw new Error("hand-back failed");
  });
  onDrain(async () => {
    await new Promise((resolve) => setTimeout(resolve, 50));
    ran.push("lease");
  });
  expect(isDraining()).toBe(false);

  await drain();
  expect(isDraining()).toBe(true);
  expect(ran).toEqual(["lease", "stream"]);
  expect(quiet).toHaveBeenCalledWith("[framehook] a drain step failed", expect.any(Error));

  await drain();
  expect(ran).toEqual(["lease", "stream"]);
  onDrain(() => void ran.push("late stream"), "connections");
  await vi.waitFor(() => expect(ran).toEqual(["lease", "stream", "late stream"]));
  quiet.mockRestore();
});
