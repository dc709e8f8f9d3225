// The one place that reads process.env: validated with zod, with defaults that
// make `npm run dev` work with zero configuration. The database's variables are
// defined in lib/database/settings.ts, which the Prisma CLI reads without the secrets.
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { databaseFields, parseWith, resolveDatabaseSettings } from "./database/settings";
import { parseAddressRanges } from "./http/cidr";
import { isLoopback } from "./http/loopback";
import { DEV_WEBHOOK_SECRET as DEV_STRIPE_WEBHOOK_SECRET, paymentsFields, resolvePaymentsSettings } from "./payments/settings";
import { MAKE_SECRET as MAKE_SECRET_COMMAND, PRODUCTION_SECRET_MIN_LENGTH } from "./doctor/secret-rules";

const LOCAL_GATEWAY = "http://127.0.0.1:4010";
const DEV_API_KEY = "sim-dev-key";
const DEV_WEBHOOK_SECRET = "dev-only-webhook-secret-not-for-production";
const DEV_CRON_SECRET = "dev-only-cron-secret";
/** Production secrets must be at least this long: 32 random bytes in hex is 64. */
export { PRODUCTION_SECRET_MIN_LENGTH };
const MAKE_SECRET = `make one with \`${MAKE_SECRET_COMMAND}\` or \`node -e "console.log(crypto.randomBytes(32).toString('hex'))"\``;

const url = z.url({ protocol: /^https?$/ });
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === "" ? undefined : v), schema.optional());

const schema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    GATEWAY_BASE_URL: optional(url).default(LOCAL_GATEWAY),
    GATEWAY_API_KEY: optional(z.string().min(1)),
    GATEWAY_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(60_000)).default(10_000),
    PUBLIC_BASE_URL: optional(url).default("http://localhost:3000"),
    WEBHOOK_SECRET: optional(z.string().min(16, "must be at least 16 characters")),
    ...databaseFields,
    // Buying credits: Stripe with STRIPE_SECRET_KEY, else the local payments simulator (lib/payments/settings.ts).
    ...paymentsFields,
    // Stripe calls anyone can trigger, per client address per window (0: no limit): Checkout Sessions
    // created (Buy), and sessions read by the success page while it waits for the webhook.
    CHECKOUT_RATE_LIMIT: optional(z.coerce.number().int().min(0)).default(10),
    CHECKOUT_STATUS_RATE_LIMIT: optional(z.coerce.number().int().min(0)).default(120),
    CHECKOUT_RATE_WINDOW_SECONDS: optional(z.coerce.number().int().min(1).max(86_400)).default(600),
    // Live gallery: a stream ends itself before this (below a serverless host's maxDuration of 300 s) and the browser reconnects.
    EVENTS_STREAM_SECONDS: optional(z.coerce.number().int().min(5).max(280)).default(240),
    // Open event streams one instance serves at most; past it, browsers fall back to polling.
    EVENTS_MAX_STREAMS: optional(z.coerce.number().int().min(1)).default(2000),
    // Of those, what one owner and one client address (IPv6: its /48) may hold, so one client cannot take them all.
    EVENTS_MAX_STREAMS_PER_OWNER: optional(z.coerce.number().int().min(1)).default(10),
    EVENTS_MAX_STREAMS_PER_ADDRESS: optional(z.coerce.number().int().min(1)).default(30),
    CRON_SECRET: optional(z.string().min(1)),
    // How long a PENDING task may go unheard before a reader asks the gateway.
    POLL_STALE_MS: optional(z.coerce.number().int().min(1000).max(600_000)).default(4000),
    // Submissions per visitor per window; 0 turns the limit off.
    SUBMIT_RATE_LIMIT: optional(z.coerce.number().int().min(0)).default(20),
    SUBMIT_RATE_WINDOW_SECONDS: optional(z.coerce.number().int().min(1).max(86_400)).default(60),
    // When set, the whole app (but callbacks, health and cron) asks for this password.
    APP_PASSWORD: optional(z.string().min(8, "must be at least 8 characters")),
    // A task PENDING longer than this is flagged as overdue (never silently failed).
    PENDING_OVERDUE_MS: optional(z.coerce.number().int().min(10_000)).default(30 * 60_000),
    // Where result videos are kept once copied from the gateway (lib/copies, into lib/storage): none = never copied.
    MEDIA_STORAGE: optional(z.enum(["local", "s3", "none"])).default("local"),
    MEDIA_LOCAL_DIR: optional(z.string().min(1)).default("./data/media"),
    MEDIA_MAX_BYTES: optional(z.coerce.number().int().min(1).max(2_000_000_000)).default(1024 ** 3),
    MEDIA_COPY_MAX_ATTEMPTS: optional(z.coerce.number().int().min(1).max(50)).default(6),
    MEDIA_COPY_RETRY_MS: optional(z.coerce.number().int().min(10)).default(10_000),
    MEDIA_COPY_LEASE_MS: optional(z.coerce.number().int().min(500)).default(60_000),
    // A copy attempt is cut (and retried with backoff) when its rate stays under
    // this floor over the window, or at the deadline, whatever the host sends.
    MEDIA_COPY_MIN_BYTES_PER_SECOND: optional(z.coerce.number().int().min(0)).default(32 * 1024),
    MEDIA_COPY_RATE_WINDOW_MS: optional(z.coerce.number().int().min(500).max(3_600_000)).default(15_000),
    MEDIA_COPY_DEADLINE_MS: optional(z.coerce.number().int().min(1000)).default(30 * 60_000),
    // How long the cron waits for the copies it starts before answering; the rest go on, or wait for its next run.
    MEDIA_CRON_BUDGET_MS: optional(z.coerce.number().int().min(0).max(280_000)).default(20_000),
    // Total bytes of stored copies; past it, copies fail (FAILED, with the reason). Unset: no quota.
    MEDIA_STORAGE_QUOTA_BYTES: optional(z.coerce.number().int().min(1)),
    MEDIA_RETENTION_DAYS: optional(z.coerce.number().int().min(1)),
    // Media tasks at once per instance (an upload's check, a still, a frame; default: the cores, at most 4), and how long one waits for a slot before it is "busy".
    MEDIA_CONCURRENCY: optional(z.coerce.number().int().min(1).max(64)).default(Math.min(os.availableParallelism(), 4)),
    MEDIA_QUEUE_TIMEOUT_MS: optional(z.coerce.number().int().min(100).max(600_000)).default(30_000),
    // Uploaded model inputs (frames, reference videos): what one owner may keep
    // at once, how long an upload no submission used is kept, how long the
    // inputs of a finished generation are kept, and how long the link the
    // gateway fetches an input from stays valid (longer than queueing plus retries).
    UPLOAD_QUOTA_BYTES: optional(z.coerce.number().int().min(1)).default(500 * 1024 ** 2),
    UPLOAD_UNUSED_HOURS: optional(z.coerce.number().min(0.01).max(24 * 30)).default(6),
    UPLOAD_RETENTION_DAYS: optional(z.coerce.number().min(0.01)).default(7),
    UPLOAD_LINK_SECONDS: optional(z.coerce.number().int().min(300).max(7 * 86_400)).default(86_400),
    // What anonymous visitors from one client address (IPv6: its /48) may keep
    // together, whatever they do with cookies (default: 3 × UPLOAD_QUOTA_BYTES);
    // what every upload no submission has used yet may take together; 0: off.
    UPLOAD_ADDRESS_QUOTA_BYTES: optional(z.coerce.number().int().min(0)),
    UPLOAD_UNUSED_TOTAL_BYTES: optional(z.coerce.number().int().min(0)).default(10 * 1024 ** 3),
    // Uploads (and presigned forms) per client address per window; 0 turns the limit off.
    UPLOAD_RATE_LIMIT: optional(z.coerce.number().int().min(0)).default(30),
    UPLOAD_RATE_WINDOW_SECONDS: optional(z.coerce.number().int().min(1).max(86_400)).default(60),
    // Requests to public share links (page, file, still, player) per client address per window; 0 turns the limit off.
    // A video played once is a few range requests, seeking adds more.
    SHARE_RATE_LIMIT: optional(z.coerce.number().int().min(0)).default(300),
    SHARE_RATE_WINDOW_SECONDS: optional(z.coerce.number().int().min(1).max(86_400)).default(60),
    S3_BUCKET: optional(z.string().min(1)),
    S3_REGION: optional(z.string().min(1)).default("auto"),
    S3_ENDPOINT: optional(url),
    S3_ACCESS_KEY_ID: optional(z.string().min(1)),
    S3_SECRET_ACCESS_KEY: optional(z.string().min(1)),
    S3_FORCE_PATH_STYLE: optional(z.enum(["true", "false"]).transform((v) => v === "true")).default(false),
    S3_PUBLIC_BASE_URL: optional(url),
    S3_PRESIGN_SECONDS: optional(z.coerce.number().int().min(60).max(7 * 86_400)).default(900),
    // Signs the anonymous visitor cookie (lib/viewer/get-viewer.ts); defaults to a key derived from WEBHOOK_SECRET.
    VIEWER_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
    // "owner": each visitor sees their own generations; "shared": everyone's finished videos too.
    GALLERY_SCOPE: optional(z.enum(["owner", "shared"])).default("owner"),
    // Credits one owner may spend (in flight + succeeded) per window; 0 turns the cap off.
    SPEND_LIMIT_CREDITS: optional(z.coerce.number().min(0)).default(0),
    SPEND_LIMIT_WINDOW: optional(z.enum(["hour", "day", "week"])).default("day"),
    // What anonymous visitors from one client address (IPv6: its /48) may spend
    // together per window, whatever they do with cookies; 0: off. Default: SPEND_LIMIT_CREDITS.
    SPEND_LIMIT_ADDRESS_CREDITS: optional(z.coerce.number().min(0)),
    // What every owner together may spend per window, on every instance; 0 turns it off.
    SPEND_LIMIT_TOTAL_CREDITS: optional(z.coerce.number().min(0)).default(0),
    // "false": the kit's credits are off (an internal tool): submissions hold nothing, nobody is
    // welcomed or sells credits, and only the spending caps bound what is spent (docs/credits.md).
    CREDITS_ENABLED: optional(z.enum(["true", "false"]).transform((v) => v === "true")).default(true),
    // The kit's credits (lib/credits, docs/credits.md): a generation costs its gateway cost × CREDITS_MARKUP
    // ÷ CREDITS_CREDIT_VALUE_USD, rounded up to a whole credit; every new owner is given CREDITS_WELCOME_GRANT (0: none).
    CREDITS_MARKUP: optional(z.coerce.number().min(0.01).max(1000)).default(1.5),
    CREDITS_CREDIT_VALUE_USD: optional(z.coerce.number().min(0.000001).max(1000)).default(0.1),
    CREDITS_WELCOME_GRANT: optional(z.coerce.number().int().min(0).max(1_000_000_000)).default(25),
    // New owners welcomed per client address per day (guests are free to make: a cookie each); past
    // it an owner is simply not welcomed, and may be on a later day. 0 turns the bound off.
    CREDITS_WELCOME_GRANTS_PER_ADDRESS: optional(z.coerce.number().int().min(0).max(1_000_000)).default(3),
    // New owners welcomed per day on the whole instance (every address, every app instance): the
    // bound on what free credits cost whatever proxy pool a farm uses. Past it new visitors get 0
    // and are told how to get credits. 0 turns it off.
    CREDITS_WELCOME_GRANTS_PER_DAY: optional(z.coerce.number().int().min(0).max(100_000_000)).default(1000),
    // Opens /admin (every owner's generations, spend, delivery log); unset (and no ADMIN_EMAILS), /admin says it is off and what to set.
    ADMIN_PASSWORD: optional(z.string().min(12, "must be at least 12 characters")),
    // Accounts (lib/auth, docs/accounts.md). Signed-in accounts whose verified email is listed here are admins.
    ADMIN_EMAILS: optional(z.string())
      .transform((v) => (v ?? "").split(",").map((e) => e.trim().toLowerCase()).filter(Boolean))
      .pipe(z.array(z.email())),
    // How long a session lasts since it was last renewed, and how old it must be before a request renews it.
    AUTH_SESSION_SECONDS: optional(z.coerce.number().int().min(10).max(400 * 86_400)).default(30 * 86_400),
    AUTH_SESSION_RENEW_SECONDS: optional(z.coerce.number().int().min(1).max(400 * 86_400)).default(86_400),
    // Signs Better Auth's sessions; defaults to a key derived from WEBHOOK_SECRET.
    AUTH_SECRET: optional(z.string().min(32, "must be at least 32 characters")),
    // Where sign-in emails go (smtp://user:pass@host:587, smtps://…). Unset: the development
    // mailbox in development; in production, email sign-in is off.
    SMTP_URL: optional(z.url({ protocol: /^smtps?$/ })),
    MAIL_FROM: optional(z.string().min(3)).default("Framehook <no-reply@localhost>"),
    // Ready emails (lib/notifications): the wait before the first retry when the mail server
    // fails (doubling after each failure, at most 15 minutes), and how long after the video
    // settled the sender gives up.
    READY_EMAIL_RETRY_MS: optional(z.coerce.number().int().min(100).max(3_600_000)).default(10_000),
    READY_EMAIL_GIVE_UP_MS: optional(z.coerce.number().int().min(1_000).max(7 * 86_400_000)).default(6 * 3_600_000),
    // OAuth sign-in switches on when both of a provider's keys are set.
    GITHUB_CLIENT_ID: optional(z.string().min(1)),
    GITHUB_CLIENT_SECRET: optional(z.string().min(1)),
    GOOGLE_CLIENT_ID: optional(z.string().min(1)),
    GOOGLE_CLIENT_SECRET: optional(z.string().min(1)),
    // "true": guests may look but must sign in to generate or upload.
    REQUIRE_SIGN_IN: optional(z.enum(["true", "false"]).transform((v) => v === "true")).default(false),
    // What one guest (no account) may spend per window; 0: off. Default: SPEND_LIMIT_CREDITS.
    SPEND_LIMIT_GUEST_CREDITS: optional(z.coerce.number().min(0)),
    // How long the gateway may answer "no such task" (JSON 404s only) before
    // the task is flagged lost. Never final: a later real report still wins.
    TASK_LOST_AFTER_MS: optional(z.coerce.number().int().min(60_000)).default(6 * 3_600_000),
    // Proxies in front of the app that append to X-Forwarded-For (0: none,
    // the socket address is the client; 1: Vercel, or one nginx/Caddy).
    TRUSTED_PROXY_HOPS: optional(z.coerce.number().int().min(0).max(10)).default(0),
    // The proxies' own addresses (comma-separated CIDR ranges). When set, a hop
    // is trusted only if the address that handed the request on is inside them.
    TRUSTED_PROXY_CIDRS: optional(z.string())
      .transform((value, ctx) => {
        if (value === undefined) return undefined;
        const parsed = parseAddressRanges(value);
        if (parsed.ok) return parsed.ranges.written.length ? parsed.ranges : undefined;
        ctx.addIssue({ code: "custom", message: `"${parsed.entry}" is not an address or a CIDR range (10.0.0.0/8, 2001:db8::/32)` });
        return z.NEVER;
      }),
    // Where `npm run dev` (the app and the simulators) listens: this computer only by default. "0.0.0.0"
    // opens them to the network (with a warning); the mailbox and the public development secrets still
    // answer loopback only (lib/viewer/peer-address.ts).
    DEV_LISTEN_HOST: optional(z.string().min(1)).default("127.0.0.1"),
    // Traces (OpenTelemetry, docs/operations.md "Traces"): off unless the OTLP/HTTP endpoint is set,
    // e.g. http://127.0.0.1:4318 (spans go to <endpoint>/v1/traces); its headers ("key=value,…", an
    // API key a hosted backend asks for) and the service name the spans carry.
    OTEL_EXPORTER_OTLP_ENDPOINT: optional(url),
    OTEL_EXPORTER_OTLP_HEADERS: optional(z.string())
      .transform((value, ctx) => {
        const headers: Record<string, string> = {};
        for (const pair of (value ?? "").split(",").filter((p) => p.trim())) {
          const at = pair.indexOf("=");
          if (at <= 0) {
            ctx.addIssue({ code: "custom", message: "must be key=value pairs separated by commas" });
            return z.NEVER;
          }
          headers[decodeHeaderPart(pair.slice(0, at))] = decodeHeaderPart(pair.slice(at + 1));
        }
        return headers;
      }),
    OTEL_SERVICE_NAME: optional(z.string().min(1).max(100)).default("framehook"),
    // `next build` loads the route modules once; secrets are not needed for that.
    NEXT_PHASE: z.string().optional(),
  })
  .transform((raw, ctx) => {
    const gatewayIsLocal = isLoopback(raw.GATEWAY_BASE_URL);
    // Development defaults are public (they are in this file), so they are
    // used only against a local simulator, where nothing real is at stake.
    const devDefaultsAllowed = gatewayIsLocal;
    // `next build` loads the route modules once, serving nothing: secrets are
    // asked for by the process that serves (next start, npm start, a host).
    const serving = raw.NEXT_PHASE !== "phase-production-build";
    const missing = (name: string) =>
      ctx.addIssue({ code: "custom", path: [name], message: `is required when GATEWAY_BASE_URL is not a local simulator` });
    if (serving && !raw.GATEWAY_API_KEY && !gatewayIsLocal) missing("GATEWAY_API_KEY");
    if (serving && !raw.WEBHOOK_SECRET && !devDefaultsAllowed) missing("WEBHOOK_SECRET");
    if (raw.MEDIA_STORAGE === "s3" && !raw.S3_BUCKET) ctx.addIssue({ code: "custom", path: ["S3_BUCKET"], message: "is required when MEDIA_STORAGE=s3" });
    // In production the development defaults never apply, whatever the gateway's
    // address: a sidecar, a tunnel or a demo on loopback is still a public app.
    if (serving && raw.NODE_ENV === "production") {
      // The development secrets are public (in this repository): refused in production whatever else is set.
      for (const [name, publicValue] of [["WEBHOOK_SECRET", DEV_WEBHOOK_SECRET], ["CRON_SECRET", DEV_CRON_SECRET], ["STRIPE_WEBHOOK_SECRET", DEV_STRIPE_WEBHOOK_SECRET]] as const) {
        if (raw[name] === publicValue) ctx.addIssue({ code: "custom", path: [name], message: `is the public development value, refused in production (NODE_ENV=production); ${MAKE_SECRET}` });
      }
      for (const name of ["WEBHOOK_SECRET", "CRON_SECRET"] as const) {
        const value = raw[name];
        if (!value || value.length < PRODUCTION_SECRET_MIN_LENGTH) {
          ctx.addIssue({
            code: "custom",
            path: [name],
            message: `${value ? "is too short" : "is required"} in production (NODE_ENV=production): at least ${PRODUCTION_SECRET_MIN_LENGTH} characters; ${MAKE_SECRET}`,
          });
        }
      }
    }
    return {
      ...resolveDatabaseSettings(raw),
      GATEWAY_API_KEY: raw.GATEWAY_API_KEY ?? DEV_API_KEY,
      WEBHOOK_SECRET: raw.WEBHOOK_SECRET ?? DEV_WEBHOOK_SECRET,
      CRON_SECRET: raw.CRON_SECRET ?? (devDefaultsAllowed ? DEV_CRON_SECRET : undefined),
      SPEND_LIMIT_ADDRESS_CREDITS: raw.SPEND_LIMIT_ADDRESS_CREDITS ?? raw.SPEND_LIMIT_CREDITS,
      SPEND_LIMIT_GUEST_CREDITS: raw.SPEND_LIMIT_GUEST_CREDITS ?? raw.SPEND_LIMIT_CREDITS,
      UPLOAD_ADDRESS_QUOTA_BYTES: raw.UPLOAD_ADDRESS_QUOTA_BYTES ?? 3 * raw.UPLOAD_QUOTA_BYTES,
      // Against the working directory, as path.resolve does; process.cwd() named here would make Next's build trace the whole project.
      MEDIA_LOCAL_DIR: path.resolve(raw.MEDIA_LOCAL_DIR),
      gatewayIsLocal,
      tracing: raw.OTEL_EXPORTER_OTLP_ENDPOINT
        ? { endpoint: raw.OTEL_EXPORTER_OTLP_ENDPOINT, headers: raw.OTEL_EXPORTER_OTLP_HEADERS, serviceName: raw.OTEL_SERVICE_NAME }
        : null,
      payments: resolvePaymentsSettings(raw, { serving, issue: (name, message) => ctx.addIssue({ code: "custom", path: [name], message }) }),
    };
  });

export type Env = z.infer<typeof schema>;

/** OTEL_EXPORTER_OTLP_HEADERS' parts are percent-encoded (the OpenTelemetry convention); a stray % is kept as written. */
function decodeHeaderPart(text: string): string {
  try {
    return decodeURIComponent(text.trim());
  } catch {
    return text.trim();
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  return parseWith(schema, source);
}

export const env: Env = parseEnv(process.env);

export { isLoopback };
