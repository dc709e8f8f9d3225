import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Lets parallel builds (tests, benchmarks) keep out of each other's way.
  distDir: process.env.NEXT_DIST_DIR || ".next",
  // The test build (scripts/test-build.ts) skips the type check its callers already ran.
  typescript: { ignoreBuildErrors: process.env.NEXT_SKIP_TYPECHECK === "1" },
  // The libSQL client ships native bindings: load it from node_modules at run time.
  serverExternalPackages: ["@libsql/client", "libsql", "@prisma/adapter-libsql"],
};

export default nextConfig;
