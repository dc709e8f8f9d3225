// What an instance does when it is told to stop (SIGTERM: `docker stop`, a
// rolling deploy): it stops taking work and hands back what it holds, so that
// another instance carries on at once. Next's own SIGTERM handler closes the
// listener and then waits for the requests still open; the hooks here end
// what would keep it waiting (live streams, which their browsers reopen on
// another instance) and give back what others would otherwise wait out
// (copy leases). The state sits on globalThis: Next loads this module once
// per bundle (instrumentation.ts, each route), and all must see one.
import http from "node:http";
import type { Socket } from "node:net";

type DrainHook = () => void | Promise<void>;
/**
 * `work` hooks hand back what the instance holds (copy leases: database
 * writes); `connections` hooks end what keeps Next's server open (live
 * streams, idle sockets). Next exits as soon as its last connection has
 * ended, so the connections end only once the work is handed back, or after
 * HAND_BACK_MS if the database does not answer.
 */
export type DrainStage = "work" | "connections";
type DrainState = { draining: boolean; hooks: Record<DrainStage, Set<DrainHook>> };

const globalForDrain = globalThis as unknown as { framehookDrain?: DrainState };
const state: DrainState = (globalForDrain.framehookDrain ??= { draining: false, hooks: { work: new Set(), connections: new Set() } });

/** After this long past SIGTERM the process exits whatever is still open: under Docker's default grace of 10 s. */
export const DRAIN_EXIT_MS = 8_000;
const HAND_BACK_MS = 2_000;

/** True once the instance was told to stop: it takes no new work, and /api/ready says so. */
export const isDraining = (): boolean => state.draining;

/** Runs `hook` when the instance drains (at once if it already is); the returned function unregisters it. */
export function onDrain(hook: DrainHook, stage: DrainStage = "work"): () => void {
  if (state.draining) {
    void Promise.resolve().then(hook).catch(logHookError);
    return () => {};
  }
  state.hooks[stage].add(hook);
  return () => state.hooks[stage].delete(hook);
}

/** Marks the instance draining and runs every hook once, the work's first; resolves when all have finished. */
export async function drain(): Promise<void> {
  if (state.draining) return;
  state.draining = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([runHooks("work"), new Promise<void>((resolve) => (timer = setTimeout(resolve, HAND_BACK_MS)))]);
  clearTimeout(timer);
  await runHooks("connections");
}

async function runHooks(stage: DrainStage): Promise<void> {
  const hooks = [...state.hooks[stage]];
  state.hooks[stage].clear();
  const results = await Promise.allSettled(hooks.map(async (hook) => hook()));
  for (const result of results) if (result.status === "rejected") logHookError(result.reason);
}

/**
 * Drains on SIGTERM, beside Next's own handler, which stops listening and
 * exits 143 once no connection is left. A proxy keeps idle connections to
 * the instance open for reuse (nginx's upstream keepalive, 60 s), and the
 * socket of a stream this instance ended goes idle only after Next's handler
 * has looked: so while draining, every connection is closed as soon as no
 * response is open on it, and a request that still arrives on one is
 * answered with `Connection: close`. Which connections are idle is counted
 * here, from each response's close, and not asked of Node: on Node 22,
 * `server.closeIdleConnections()` still counts a keep-alive connection whose
 * streamed response has ended as active, and the process waited out its
 * hard stop. If requests are still open after DRAIN_EXIT_MS (a slow upload),
 * the process exits 1 and says so. Next hands no hook into its server, so
 * connections are found by wrapping the server prototype's emit, once.
 */
export function drainOnSigterm(): void {
  const installed = globalThis as unknown as { framehookDrainInstalled?: boolean };
  if (installed.framehookDrainInstalled) return;
  installed.framehookDrainInstalled = true;
  /** Every open connection of the instance's servers, with how many of its responses are still open. */
  const openResponses = new Map<Socket, number>();
  const closeIfIdle = (socket: Socket) => {
    if (state.draining && openResponses.get(socket) === 0) socket.destroy();
  };
  const proto = http.Server.prototype;
  const emit = proto.emit as (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]) {
    if (event === "connection") {
      const socket = args[0] as Socket;
      openResponses.set(socket, 0);
      socket.once("close", () => openResponses.delete(socket));
    } else if (event === "request") {
      const response = args[1] as http.ServerResponse;
      const socket = response.socket;
      if (state.draining) response.shouldKeepAlive = false;
      if (socket && openResponses.has(socket)) {
        openResponses.set(socket, openResponses.get(socket)! + 1);
        response.once("close", () => {
          if (!openResponses.has(socket)) return;
          openResponses.set(socket, openResponses.get(socket)! - 1);
          closeIfIdle(socket);
        });
      }
    }
    return emit.call(this, event, ...args);
  } as typeof proto.emit;
  onDrain(() => {
    const closeIdle = () => openResponses.forEach((_, socket) => closeIfIdle(socket));
    closeIdle();
    setInterval(closeIdle, 100).unref();
  }, "connections");
  process.once("SIGTERM", () => {
    console.log(`[framehook] SIGTERM: draining (open streams told to reconnect, copy leases handed back), exiting within ${DRAIN_EXIT_MS / 1000} s`);
    setTimeout(() => {
      console.error(`[framehook] requests still open ${DRAIN_EXIT_MS / 1000} s after SIGTERM: exiting without them`);
      process.exit(1);
    }, DRAIN_EXIT_MS).unref();
    void drain();
  });
}

function logHookError(error: unknown) {
  console.error("[framehook] a drain step failed", error);
}
