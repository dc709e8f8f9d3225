// In front of every page and API: the optional access gate for deployed
// instances (with APP_PASSWORD set, HTTP Basic auth, any user name), the
// per-address limit on public share links (/v/…, /c/…), then the anonymous
// visitor cookie that getViewer() reads (lib/viewer/). Callbacks,
// health checks, the cron and one-click unsubscribes carry their own credentials, act for no viewer,
// and pass through (callbacks are kept out by the matcher, below, as well).
import { NextResponse, type NextRequest } from "next/server";
import { visitorAddress } from "@/lib/rate-limit";
import { hitShareLimit, publicShareRoute } from "@/lib/sharing/share-limit";
import { checkAccessGate, gatePassCookieName, gatePassCookieOptions } from "@/lib/viewer/access-gate";
import { viewerCookieOptions, viewerSecret, visitorCookieName } from "@/lib/viewer/get-viewer";
import { ensureViewerCookie } from "@/lib/viewer/viewer-cookie";

const OPEN_PATHS = new Set(["/api/webhooks/gateway", "/api/webhooks/stripe", "/api/health", "/api/ready", "/api/ping", "/api/cron/reconcile"]);
/** A mail provider's one-click unsubscribe carries no password or cookie: its token is its credential. */
const UNSUBSCRIBE_PREFIX = "/api/unsubscribe/";

export async function proxy(request: NextRequest) {
  if (OPEN_PATHS.has(request.nextUrl.pathname) || request.nextUrl.pathname.startsWith(UNSUBSCRIBE_PREFIX)) return NextResponse.next();
  const gate = await atAccessGate(request);
  if (gate instanceof NextResponse) return gate;
  const response = await pastAccessGate(request);
  if (gate.pass) response.cookies.set(gatePassCookieName(), gate.pass, gatePassCookieOptions());
  return response;
}

async function pastAccessGate(request: NextRequest): Promise<NextResponse> {
  const shared = publicShareRoute(request.nextUrl.pathname);
  if (shared) {
    const refused = await shareLimitRefusal(request);
    if (refused) return refused;
    // A shared file or player acts for no viewer: a crawler or an embed gets no cookie.
    if (shared !== "page") return NextResponse.next();
  }
  return withViewerCookie(request);
}

/**
 * The access gate (lib/viewer/access-gate.ts), which counts passwords in the
 * database: its refusal, or a pass to give the browser. A database that cannot
 * count keeps the gate shut (503) to anyone without a pass: a password is
 * never compared uncounted.
 */
async function atAccessGate(request: NextRequest): Promise<NextResponse | { pass?: string }> {
  try {
    const gate = await checkAccessGate({ authorization: request.headers.get("authorization"), cookies: request.headers.get("cookie"), address: visitorAddress(request.headers) });
    return gate.ok ? gate : new NextResponse(gate.message, { status: gate.status, headers: gate.headers });
  } catch (error) {
    console.warn("[framehook] access gate not checked:", error instanceof Error ? error.message : error);
    return new NextResponse("The service is briefly unavailable. Please try again in a few seconds.", { status: 503, headers: { "Retry-After": "5" } });
  }
}

/**
 * Public share links are limited per client address, in front of the page, its
 * file, its still and its player alike. A database that cannot count lets the
 * request through: the route's own read then answers (a 503 while it is down).
 */
async function shareLimitRefusal(request: NextRequest): Promise<NextResponse | null> {
  try {
    const limit = await hitShareLimit(request.headers);
    if (limit.allowed) return null;
    return new NextResponse("Too many requests. Please try again shortly.", {
      status: 429,
      headers: { "Retry-After": String(limit.retryAfterSeconds), "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  } catch (error) {
    console.warn("[framehook] share link limit not counted:", error instanceof Error ? error.message : error);
    return null;
  }
}

/**
 * Server Components cannot set cookies, so the visitor's cookie is issued
 * here: on the response for the browser, and on this very request so that
 * the page rendering it already has its viewer.
 */
function withViewerCookie(request: NextRequest) {
  const name = visitorCookieName();
  const { value, renewed } = ensureViewerCookie(request.headers.get("cookie"), viewerSecret(), Date.now(), name);
  if (!renewed) return NextResponse.next();
  request.cookies.set(name, value);
  const response = NextResponse.next({ request: { headers: request.headers } });
  response.cookies.set(name, value, viewerCookieOptions());
  return response;
}

// The brand's public files (lib/brand/index.ts `assets`) skip the gate: browsers fetch
// the manifest without credentials, and icons hold nothing private. The
// gateway's callback skips it too: Next buffers the body of every request this
// proxy sees before any route runs, and logs the URL (the callback's token)
// when that body is large; the route reads its body itself, within its limit.
// So does Stripe's webhook, which carries no cookie or password: its signature
// is its credential, checked over the raw body by the route.
// Uploads skip it for the same reason (a file streams to storage, never
// buffered whole): the access gate is applied to POST /api/uploads before its
// body is read (lib/http/body-guard.ts), and again by the route itself. The
// gateway's input links (/api/inputs/…) carry their own signature.
export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon\\.ico$|apple-touch-icon\\.png$|manifest\\.webmanifest$|brand/|api/webhooks/gateway$|api/webhooks/stripe$|api/uploads$|api/inputs/).*)"],
};
