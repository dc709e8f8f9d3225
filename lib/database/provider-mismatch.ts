// The Prisma client is generated for one engine (prisma generate reads
// DATABASE_URL). Running it against the other fails inside Prisma with a
// message about adapters; this says what to do instead.
export function explainProviderMismatch<T>(create: () => T, databaseUrl: string): T {
  try {
    return create();
  } catch (error) {
    if (!(error instanceof Error) || !/is not compatible with the provider/.test(error.message)) throw error;
    const scheme = databaseUrl.split(":")[0];
    throw new Error(
      `The Prisma client in lib/generated/prisma was generated for another database engine than DATABASE_URL (${scheme}:…) names. ` +
        "Run `npx prisma generate` (or `npm run build`) with the DATABASE_URL you run with.",
      { cause: error },
    );
  }
}
