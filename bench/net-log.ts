// Bytes per request URL from a Chromium network log (`--log-net-log=FILE`,
// default capture mode). DevTools misses the bytes of the range requests
// Chromium's media loader cancels; the log counts what crossed each socket.
// Each SOCKET_BYTES_RECEIVED goes to the request holding the socket at that
// moment: SOCKET_IN_USE names a stream job, HTTP_STREAM_JOB_BOUND_TO_REQUEST
// (or HTTP_STREAM_REQUEST_BOUND_TO_JOB) ties the job to its URL request, and
// URL_REQUEST_START_JOB carries the request's URL.
import fs from "node:fs";

type NetLogEvent = { type: number; phase: number; source: { id: number; type: number }; params?: Record<string, unknown> };
type NetLog = { constants: { logEventTypes: Record<string, number>; logEventPhase: Record<string, number> }; events: NetLogEvent[] };

export type RequestBytes = { url: string; bytes: number };

/** A log cut short (the browser killed before it closed the file) is closed here rather than lost. */
function readNetLog(file: string): NetLog {
  const text = fs.readFileSync(file, "utf8").trimEnd();
  try {
    return JSON.parse(text) as NetLog;
  } catch {
    return JSON.parse(`${text.replace(/,$/, "")}]}`) as NetLog;
  }
}

/** Bytes received per URL request (several requests may share a URL: media range requests), plus bytes on no request. */
export function bytesPerRequest(file: string): { requests: RequestBytes[]; unattributed: number } {
  const log = readNetLog(file);
  const type = log.constants.logEventTypes;
  const phase = log.constants.logEventPhase;
  const dependency = (e: NetLogEvent) => (e.params?.source_dependency as { id: number } | undefined)?.id;
  const urlOf = new Map<number, string>();
  const requestOfJob = new Map<number, number>();
  const holder = new Map<number, number>();
  const bytes = new Map<number, number>();
  let unattributed = 0;
  for (const e of log.events) {
    if (e.type === type.URL_REQUEST_START_JOB && e.phase === phase.PHASE_BEGIN && typeof e.params?.url === "string" && !urlOf.has(e.source.id)) {
      urlOf.set(e.source.id, e.params.url);
    } else if (e.type === type.HTTP_STREAM_JOB_BOUND_TO_REQUEST && dependency(e) !== undefined) {
      requestOfJob.set(e.source.id, dependency(e)!);
    } else if (e.type === type.HTTP_STREAM_REQUEST_BOUND_TO_JOB && dependency(e) !== undefined) {
      requestOfJob.set(dependency(e)!, e.source.id);
    } else if (e.type === type.SOCKET_IN_USE) {
      if (e.phase === phase.PHASE_BEGIN && dependency(e) !== undefined) holder.set(e.source.id, dependency(e)!);
      else if (e.phase === phase.PHASE_END) holder.delete(e.source.id);
    } else if (e.type === type.SOCKET_BYTES_RECEIVED) {
      const count = Number(e.params?.byte_count ?? 0);
      const job = holder.get(e.source.id);
      // The job may be bound to its request after the socket is taken: resolved at the end.
      if (job === undefined) unattributed += count;
      else bytes.set(job, (bytes.get(job) ?? 0) + count);
    }
  }
  const perRequest = new Map<number, number>();
  for (const [job, count] of bytes) {
    const request = requestOfJob.get(job) ?? job;
    if (urlOf.has(request)) perRequest.set(request, (perRequest.get(request) ?? 0) + count);
    else unattributed += count;
  }
  return { requests: [...perRequest].map(([id, count]) => ({ url: urlOf.get(id)!, bytes: count })), unattributed };
}
