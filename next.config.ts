import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The libSQL client ships native bindings: load it from node_modules at run time.
  serverExternalPackages: ["@libsql/client", "libsql", "@prisma/adapter-libsql"],
};

export default nextConfig;
