// The gateway unreachable at submit (connection refused): bounded retries,
// SUBMIT_FAILED with a clear message, and the next submit works once it is back.
import net from "node:net";
import { afterAll, expect, test } from "vitest";
import { startApp } from "../support/app";
import { startSimulator } from "../support/global-setup";
import { submitPrompt } from "../support/generations";

const port = await new Promise<number>((resolve) => {
  const probe = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = probe.address() as net.AddressInfo;
    probe.close(() => resolve(port));
  });
});
const app = await startApp({ env: { GATEWAY_BASE_URL: `http://127.0.0.1:${port}` } });
let revived: Awaited<ReturnType<typeof startSimulator>> | undefined;
afterAll(async () => {
  revived?.child.kill("SIGTERM");
  await app.close();
});

test("connection refused → SUBMIT_FAILED, 0 credits; once the gateway is back, the next submit works", async () => {
  const down = await submitPrompt(app, "a lantern in the fog");
  expect(down.status).toBe(503);
  expect(down.body.error).toEqual({
    code: "gateway_unavailable",
    message: "The video gateway is unavailable right now. Nothing was charged; try again in a moment.",
  });
  const failed = await app.fetch(`/api/generations/${(down.body.generation as { id: string }).id}`);
  expect(await failed.json()).toMatchObject({ state: "SUBMIT_FAILED", creditsConsumed: 0, error: { code: "submit_unreachable" } });

  revived = await startSimulator({ SIMULATOR_PORT: String(port), SIMULATOR_LOG: "quiet" });
  const up = await submitPrompt(app, "a lantern in the fog, again");
  expect(up.status).toBe(201);
  expect(up.body).toMatchObject({ state: "PENDING", taskId: expect.stringMatching(/^task_/) });
});
