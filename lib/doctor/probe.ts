// How the doctor asks the app a question over HTTP: a refused connection is
// "nothing answers" at once; a connection the app took but has not answered
// yet, on this computer, is most likely `next dev` compiling the route on its
// first request (tens of seconds on a busy laptop), so that wait is longer
// and, if it runs out, said for what it likely is.
import { isLoopback } from "@/lib/http/loopback";

/** How long one answer may take; on this computer, how long a compiling development server may take. */
const ANSWER_MS = 5_000;
const COMPILING_MS = 120_000;

export type Probe = { response: Response } | { failure: string };

export async function probeApp(url: string): Promise<Probe> {
  const ask = (timeoutMs: number) => fetch(url, { redirect: "manual", signal: AbortSignal.timeout(timeoutMs), cache: "no-store" });
  try {
    return { response: await ask(ANSWER_MS) };
  } catch (error) {
    if (!timedOut(error) || !isLoopback(url)) return { failure: `nothing answers at ${url} (${errorCode(error)})` };
  }
  // Taken, not answered: the first request of `next dev` waits for its compile, and so does this one.
  console.log(`[doctor] ${new URL(url).origin} took the connection but has not answered in ${ANSWER_MS / 1000} s: waiting for a compiling development server (up to ${COMPILING_MS / 1000} s)…`);
  try {
    return { response: await ask(COMPILING_MS) };
  } catch (error) {
    if (!timedOut(error)) return { failure: `nothing answers at ${url} (${errorCode(error)})` };
    return { failure: `${url} took the connection but did not answer within ${COMPILING_MS / 1000} s: the app is still compiling (\`npm run dev\`) or stuck` };
  }
}

const timedOut = (error: unknown) => (error as Error).name === "TimeoutError";
const errorCode = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name;
