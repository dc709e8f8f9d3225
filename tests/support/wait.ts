/**
 * Polls `probe` until it returns something truthy, and returns that; fails
 * after `timeoutMs`, naming `what` it waited for when given. The default bound
 * is for a loaded machine: it only ends a wait for something that never comes,
 * and one process start (doctor.test.ts) took 10 to 21 s at load average 25 on 2 cores.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 60_000,
  what?: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`waitFor: timed out after ${timeoutMs} ms${what ? ` waiting for ${what}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
