import type { NextConfig } from "next";

/**
 * Paths another site may show in a frame (Next's `source` syntax: a
 * ":name" segment is any one segment, a trailing "/:path*" anything below):
 * the player of a shared video, which X's player card frames
 * (app/v/[token]/embed/route.ts sets its own `frame-ancestors`). Every other
 * answer says no site may frame it (clickjacking): `frame-ancestors 'none'`,
 * and X-Frame-Options for browsers that predate it.
 */
export const FRAMEABLE_PATHS: string[] = ["/v/:token/embed"];

/**
 * The routes that serve stored files (results, stills, uploads, the gateway's
 * input links, a shared video's file and still, a shared comparison's) send a
 * policy of their own ("default-src 'none'; sandbox; frame-ancestors 'none'"):
 * Next's configured headers would replace it.
 */
const OWN_POLICY_PREFIXES = ["api/media", "api/uploads", "api/inputs", "v/:token/video", "v/:token/still", "c/:token/:position/video", "c/:token/:position/still"];

/** Every path but the frameable ones (and, with `ownPolicy`, those that set their own policy), as one `source`. */
function unframeableSource({ ownPolicy = false } = {}): string {
  const prefixes = [...FRAMEABLE_PATHS.map((path) => path.replace(/\/:path\*$/, "").replace(/^\//, "")), ...(ownPolicy ? OWN_POLICY_PREFIXES : [])].map((prefix) =>
    prefix.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:\w+/g, "[^/]+"),
  );
  if (prefixes.length === 0) return "/:path*";
  return `/((?!(?:${prefixes.join("|")})(?:/|$)).*)`;
}

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The image (Dockerfile) runs .next/standalone: the server and the files it traced.
  // `npm start` (next start) runs the same build and ignores that folder.
  output: "standalone",
  async headers() {
    return [
      { source: unframeableSource(), headers: [{ key: "X-Frame-Options", value: "DENY" }] },
      { source: unframeableSource({ ownPolicy: true }), headers: [{ key: "Content-Security-Policy", value: "frame-ancestors 'none'" }] },
      // A share link's token is in its URL: no other site learns it from a Referer, and no search engine lists it.
      { source: "/v/:path*", headers: [{ key: "Referrer-Policy", value: "no-referrer" }, { key: "X-Robots-Tag", value: "noindex, nofollow" }] },
      { source: "/c/:path*", headers: [{ key: "Referrer-Policy", value: "no-referrer" }, { key: "X-Robots-Tag", value: "noindex, nofollow" }] },
    ];
  },
  // `next dev` serves its scripts and hot reload only to pages opened on the host it
  // started for (localhost): opened at http://127.0.0.1:3000, a page would never hydrate.
  allowedDevOrigins: ["127.0.0.1"],
  // Lets parallel builds (tests, benchmarks) keep out of each other's way.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The test build (scripts/test-build.ts) skips the type check its callers already ran.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === "1" },
  // The libSQL client ships native bindings: load it from node_modules at run time.
  // OpenTelemetry's SDK too (lib/traces/start-tracing.ts), loaded only when traces are on.
  serverExternalPackages: [
    "@libsql/client",
    "libsql",
    "@prisma/adapter-libsql",
    "@opentelemetry/api",
    "@opentelemetry/context-async-hooks",
    "@opentelemetry/core",
    "@opentelemetry/exporter-trace-otlp-http",
    "@opentelemetry/resources",
    "@opentelemetry/sdk-trace",
  ],
  experimental: {
    // The copy of a body Next keeps for proxy.ts: no route takes more than
    // lib/http/body-guard.ts BODY_MAX_BYTES, which refuses larger declared bodies first.
    proxyClientMaxBodySize: "1mb",
  },
  logging: {
    // `next dev` logs each request's URL: a callback's holds its token, and an
    // input link's its signature (the gateway's fetch, valid for a day). Any
    // other URL that carries a signature is left out too.
    // A share link's path is its token.
    incomingRequests: { ignore: [/^\/api\/webhooks\/gateway\b/, /^\/api\/inputs\//, /^\/v\//, /^\/c\//, /[?&](sig|signature|token)=/i] },
  },
};

export default nextConfig;
