// The Prisma client is generated for one engine; running it against the other
// must stop at once with a message that says what to do.
import { expect, test } from "vitest";
import { createPostgresDatabase } from "@/lib/database/postgres";
import { createSqliteDatabase } from "@/lib/database/sqlite";
import { generatedClientEngine } from "../../lib/database/migrations/prisma-client";

test("a client generated for one engine refuses the other engine's URL, naming the fix", () => {
  const create =
    generatedClientEngine() === "sqlite"
      ? () => createPostgresDatabase({ url: "postgresql://app@127.0.0.1:1/app", poolMax: 1 })
      : () => createSqliteDatabase({ url: "file:/tmp/framehook-never-opened.db" });
  expect(create).toThrow(/generated for another database engine.*npx prisma generate/);
});
