/**
 * Polls `probe` until it returns something truthy, and returns that; fails
 * after `timeoutMs`, naming `what` it waited for when given.
 */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  timeoutMs = 10_000,
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
