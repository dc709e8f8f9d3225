// Imported first by `npm start` and `npm run reconcile`: they run on a
// production machine, so they read .env.production* as `next start` does.
(process.env as Record<string, string | undefined>).NODE_ENV ??= "production";
