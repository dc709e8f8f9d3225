// Loads .env, .env.local… the way Next does, for the processes Next does not
// start itself (npm run dev's supervisor, the Prisma CLI). Import it first.
import nextEnv from "@next/env";

nextEnv.loadEnvConfig(process.cwd(), process.env.NODE_ENV !== "production", { info: () => {}, error: console.error });
