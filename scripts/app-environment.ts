// The environment `npm run dev` and `npm start` give the app (scripts/run-app.ts).
/**
 * The app's environment: the operator's, with telemetry off and, on Linux,
 * glibc's malloc arenas bounded to two unless set. Each thread that decoded an
 * image keeps an arena of its own (about 75 MB after a 12 MP photo); with two,
 * checking 12 MP photos peaked at 229 MB instead of 347–418 MB
 * (docs/media-toolchain.md). Read at the process's start, so it is set here.
 */
export function appEnvironment(base: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): NodeJS.ProcessEnv {
  return { NEXT_TELEMETRY_DISABLED: "1", ...(platform === "linux" ? { MALLOC_ARENA_MAX: "2" } : {}), ...base };
}
