// Prisma CLI configuration: the WebAssembly schema engine over the libSQL
// adapter, so that migrations need no native engine download.
import "./lib/load-env-files";
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { defineConfig } from "prisma/config";
import { env } from "./lib/env";
import { ensureDatabaseDirectory } from "./lib/database-file";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
  async adapter() {
    ensureDatabaseDirectory(env.DATABASE_URL);
    return new PrismaLibSQL({ url: env.DATABASE_URL, authToken: env.DATABASE_AUTH_TOKEN });
  },
});
