// The optional access gate for deployed instances: with APP_PASSWORD set,
// every page and API asks for it (HTTP Basic auth, any user name). Callbacks,
// health checks and the cron carry their own credentials and pass through.
import { timingSafeEqual } from "node:crypto";
import { NextResponse, type NextRequest } from "next/server";
import { brand } from "@/lib/brand";
import { env } from "@/lib/env";

const OPEN_PATHS = new Set(["/api/webhooks/gateway", "/api/health", "/api/ping", "/api/cron/reconcile"]);

export function proxy(request: NextRequest) {
  if (!env.APP_PASSWORD || OPEN_PATHS.has(request.nextUrl.pathname)) return NextResponse.next();
  if (passwordMatches(request.headers.get("authorization"), env.APP_PASSWORD)) return NextResponse.next();
  return new NextResponse("Authentication required.", {
    status: 401,
    headers: { "WWW-Authenticate": `Basic realm="${brand.name}", charset="UTF-8"` },
  });
}

export function passwordMatches(header: string | null, password: string): boolean {
  if (!header?.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice("Basic ".length), "base64").toString("utf8");
  const given = Buffer.from(decoded.slice(decoded.indexOf(":") + 1));
  const expected = Buffer.from(password);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// The brand's public files (lib/brand.ts `assets`) skip the gate: browsers fetch
// the manifest without credentials, and icons hold nothing private.
export const config = {
  matcher: ["/((?!_next/static|_next/image|favicon\\.ico$|apple-touch-icon\\.png$|manifest\\.webmanifest$|brand/).*)"],
};
