// A client with a cookie jar, as a browser: one visitor (owner) across its
// requests to one origin (the app, or the proxy in front of its instances).

/** fetch against `baseUrl` as one visitor: `visitor("/api/generations", { method: "POST", json: {...} })`. */
export function cookieVisitor(baseUrl: string) {
  // Every cookie the app sets, by name (the visitor's, and the access gate's pass when APP_PASSWORD is set).
  const jar = new Map<string, string>();
  let cookie: string | undefined;
  // Concurrent first requests wait for the first answer's cookie, as a browser's page load gets it before anything else.
  let first: Promise<unknown> | undefined;
  const request = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    if (!cookie && first) await first.catch(() => undefined);
    const sent = send(path, init);
    if (!cookie && !first) first = sent;
    return sent;
  };
  const send = async (path: string, init: RequestInit & { json?: unknown }) => {
    const { json, ...rest } = init;
    const response = await fetch(new URL(path, baseUrl), {
      ...rest,
      headers: {
        ...(json === undefined ? {} : { "Content-Type": "application/json" }),
        ...(cookie ? { Cookie: cookie } : {}),
        ...rest.headers,
      },
      body: json === undefined ? rest.body : JSON.stringify(json),
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(";")[0]!;
      const name = pair.slice(0, pair.indexOf("="));
      // An empty value or a past expiry is the app clearing the cookie.
      if (pair.endsWith("=") || /;\s*max-age=0\b/i.test(line)) jar.delete(name);
      else jar.set(name, pair);
    }
    cookie = jar.size ? [...jar.values()].join("; ") : undefined;
    return response;
  };
  /** This visitor's owner id (the id inside its signed cookie), visiting once if it has none yet. */
  const ownerId = async () => {
    if (!viewerCookie()) await request("/api/generations?limit=1");
    const pair = viewerCookie()!;
    return pair.slice(pair.indexOf("=") + 1).split(".")[0]!;
  };
  const viewerCookie = () => jar.get("framehook_viewer") ?? jar.get("__Host-framehook_viewer");
  /** The Cookie header this visitor sends, for clients other than this fetch (an event stream). */
  const cookieHeader = async () => {
    if (!cookie) await request("/api/generations?limit=1");
    return cookie!;
  };
  return Object.assign(request, { ownerId, cookieHeader });
}

export type Visitor = ReturnType<typeof cookieVisitor>;
