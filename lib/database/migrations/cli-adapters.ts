// Driver adapters for the Prisma CLI only (prisma.config.ts builds them; the
// app never loads this file). Each workaround is named after the Prisma 6.19.3
// bug it works around (prisma/README.md says why the CLI needs them);
// delete it when Prisma's WebAssembly schema engine no longer needs it.
import { PrismaLibSQL } from "@prisma/adapter-libsql";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";

type LibSqlFactory = InstanceType<typeof PrismaLibSQL>;
type PgFactory = InstanceType<typeof PrismaPg>;

/**
 * Bug: shadow-database replay sends a whole migration script as one
 * executeRaw, and libSQL runs only its first statement, so `prisma migrate dev`
 * (and `migrate diff --from-migrations`) see false drift from the second
 * migration on and offer to reset the database. A parameterless executeRaw on
 * the shadow database runs as a script instead.
 */
export function libsqlShadowRunsWholeScripts(factory: LibSqlFactory): LibSqlFactory {
  const connectToShadowDb = factory.connectToShadowDb.bind(factory);
  factory.connectToShadowDb = async () => {
    const shadow = await connectToShadowDb();
    const executeRaw = shadow.executeRaw.bind(shadow);
    shadow.executeRaw = async (query) => {
      if (query.args.length > 0) return executeRaw(query);
      await shadow.executeScript(query.sql);
      return 0;
    };
    return shadow;
  };
  return factory;
}

/** PostgreSQL catalog types introspection reads: `name` (OID 19) and `"char"` (OID 18). */
const CATALOG_TEXT_TYPES = new Set([18, 19]);
const TEXT_OID = 25;

/**
 * Bug: adapter-pg's column-type mapping rejects the catalog types `name` and
 * `"char"` that the schema engine's introspection selects ("Column type 'name'
 * could not be deserialized"), so migrate deploy/dev fail. pg already parses
 * both as strings; this client reports them as text.
 */
class CatalogTypesAsTextClient extends pg.Client {
  // pg's overloads cannot be re-declared one by one; the adapter and the pool
  // call query(config, values) and query(text, values, callback).
  query(...args: unknown[]): never {
    const callback = typeof args.at(-1) === "function" ? (args.pop() as (error: unknown, result?: pg.QueryResult) => void) : undefined;
    const result = (super.query as (...a: unknown[]) => Promise<pg.QueryResult>)(...args).then((res) => {
      for (const field of res?.fields ?? []) if (CATALOG_TEXT_TYPES.has(field.dataTypeID)) field.dataTypeID = TEXT_OID;
      return res;
    });
    if (!callback) return result as never;
    result.then((res) => callback(null, res), (error) => callback(error));
    return undefined as never;
  }
}

type PgAdapter = Awaited<ReturnType<PgFactory["connect"]>>;

/**
 * Bug: adapter-pg's executeScript splits a migration on every `;`, comments
 * and string literals included, so `-- a; b` in a migration's comment became
 * a statement of its own and `prisma migrate deploy` failed. Without
 * parameters pg sends the whole script as one simple query, which PostgreSQL
 * splits itself (and runs as one implicit transaction).
 */
function pgRunsWholeScripts(adapter: PgAdapter): PgAdapter {
  adapter.executeScript = async (script) => {
    await adapter.executeRaw({ sql: script, args: [], argTypes: [] });
  };
  return adapter;
}

function pgFactory(connectionString: string): PgFactory {
  const pool = new pg.Pool({ connectionString, max: 2, Client: CatalogTypesAsTextClient });
  const factory = new PrismaPg(pool, { disposeExternalPool: true });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => pgRunsWholeScripts(await connect());
  return factory;
}

/**
 * Bug: adapter-pg's shadow database spreads `{...config, database}`, but a
 * connectionString wins over `database`, so the "shadow" is the real database
 * (P3006 relation already exists); it also drops the shadow database while
 * its own pool is still open. Here the shadow database gets a URL of its own
 * and is dropped after its pool has closed.
 */
export function pgShadowDatabaseOfItsOwn(connectionString: string): PgFactory {
  const factory = pgFactory(connectionString);
  factory.connectToShadowDb = async () => {
    const database = `prisma_shadow_${crypto.randomUUID().replaceAll("-", "")}`;
    await withClient(connectionString, (client) => client.query(`CREATE DATABASE "${database}"`));
    const url = new URL(connectionString);
    url.pathname = `/${database}`;
    const shadow = await pgFactory(url.toString()).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await withClient(connectionString, (client) => client.query(`DROP DATABASE IF EXISTS "${database}"`));
    };
    return shadow;
  };
  return factory;
}

async function withClient<T>(connectionString: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

export function sqliteCliAdapter(url: string, authToken?: string): LibSqlFactory {
  return libsqlShadowRunsWholeScripts(new PrismaLibSQL({ url, authToken }));
}

export function postgresCliAdapter(directUrl: string): PgFactory {
  return pgShadowDatabaseOfItsOwn(directUrl);
}
