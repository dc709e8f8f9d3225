import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // `next dev` serves its scripts and hot reload only to pages opened on the host it
  // started for (localhost): opened at http://127.0.0.1:3000, a page would never hydrate.
  allowedDevOrigins: ["127.0.0.1"],
  // Lets parallel builds (tests, benchmarks) keep out of each other's way.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The test build (scripts/test-build.ts) skips the type check its callers already ran.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === "1" },
  // The libSQL client ships native bindings: load it from node_modules at run time.
  serverExternalPackages: ["@libsql/client", "libsql", "@prisma/adapter-libsql"],
  experimental: {
    // The copy of a body Next keeps for proxy.ts: no route takes more than
    // lib/http/body-guard.ts BODY_MAX_BYTES, which refuses larger declared bodies first.
    proxyClientMaxBodySize: "1mb",
  },
  logging: {
    // `next dev` logs each request's URL: a callback's holds its token, and an
    // input link's its signature (the gateway's fetch, valid for a day). Any
    // other URL that carries a signature is left out too.
    incomingRequests: { ignore: [/^\/api\/webhooks\/gateway\b/, /^\/api\/inputs\//, /[?&](sig|signature|token)=/i] },
  },
};

export default nextConfig;
