// Opens a result URL for streaming, refusing what would turn the gateway's
// link into a path into our own network: http(s) only, redirects followed by
// hand (a few, each checked again), and every connection's resolved address
// checked at connect time (so a DNS answer cannot change between check and
// use). One exception: when the gateway is the local simulator, its own origin
// may be on loopback, and only that origin.
import dns from "node:dns";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import type { LookupFunction } from "node:net";
import { isPublicAddress } from "./addresses";

const MAX_REDIRECTS = 3;
const IDLE_TIMEOUT_MS = 30_000;

/** `permanent`: trying again will not help (refused, gone, too large). */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "DownloadError";
  }
}

export const tooLarge = (maxBytes: number) => new DownloadError(`The file is too large: over the ${maxBytes}-byte limit (MEDIA_MAX_BYTES).`, true);

export type Download = { body: http.IncomingMessage; contentType: string | null; length: number | null };

export async function openDownload({
  url,
  trustedOrigin,
  maxBytes,
  signal,
}: {
  url: string;
  /** An origin allowed whatever its address (the local simulator's), or null. */
  trustedOrigin: string | null;
  maxBytes: number;
  signal?: AbortSignal;
}): Promise<Download> {
  let target = parseHttpUrl(url);
  for (let hop = 0; ; hop++) {
    const response = await get(target, target.origin === trustedOrigin, signal);
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400 && response.headers.location) {
      response.resume();
      if (hop >= MAX_REDIRECTS) throw new DownloadError(`More than ${MAX_REDIRECTS} redirects.`, true);
      target = parseHttpUrl(new URL(response.headers.location, target).href);
      continue;
    }
    if (status !== 200) {
      response.resume();
      const permanent = status >= 400 && status < 500 && status !== 408 && status !== 429;
      throw new DownloadError(status === 410 ? "The gateway's link has expired (410)." : `The gateway's link answered ${status}.`, permanent);
    }
    const declared = response.headers["content-length"];
    const length = declared !== undefined && /^\d+$/.test(declared) ? Number(declared) : null;
    if (length !== null && length > maxBytes) {
      response.destroy();
      throw tooLarge(maxBytes);
    }
    return { body: response, contentType: response.headers["content-type"] ?? null, length };
  }
}

function parseHttpUrl(href: string): URL {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    throw new DownloadError("Not a valid URL.", true);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new DownloadError(`Refused: ${url.protocol} is not http(s).`, true);
  if (url.username || url.password) throw new DownloadError("Refused: a URL with credentials.", true);
  return url;
}

function get(url: URL, trusted: boolean, signal?: AbortSignal): Promise<http.IncomingMessage> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  // An address written in the URL is connected to without a lookup: check it here.
  if (!trusted && net.isIP(host) && !isPublicAddress(host)) return Promise.reject(refused());
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(url, {
      method: "GET",
      agent: false,
      lookup: trusted ? undefined : publicOnlyLookup,
      headers: { "User-Agent": "Framehook media copy", Accept: "video/*, image/*, */*;q=0.5" },
      signal,
    });
    let response: http.IncomingMessage | undefined;
    // Destroying the request alone would reach a body already flowing as a bare "aborted".
    request.setTimeout(IDLE_TIMEOUT_MS, () => {
      const stalled = new DownloadError(`The download stalled: no data for ${IDLE_TIMEOUT_MS / 1000} s.`, false);
      response?.destroy(stalled);
      request.destroy(stalled);
    });
    request.once("response", (answer) => resolve((response = answer)));
    request.once("error", (error) => reject(error instanceof DownloadError ? error : new DownloadError(`Download failed: ${error.message}`, false)));
    request.end();
  });
}

/** dns.lookup, failing unless every address the name resolves to is public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const list = addresses as dns.LookupAddress[];
    if (list.length === 0 || !list.every((a) => isPublicAddress(a.address))) return callback(refused(), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

const refused = () => new DownloadError("Refused: the link leads to a private, loopback or link-local address.", true);
