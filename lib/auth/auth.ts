// Accounts: Better Auth, with its sessions in the kit's own database (its
// Prisma adapter, the tables in prisma/models.prisma), so that every instance
// and every serverless function agrees on who is signed in, and "sign out
// everywhere" takes effect at once. Sign-in methods: an email link, passkeys
// registered after the first sign-in, and GitHub/Google when their keys are in
// the environment. The rest of the app never reads this module's sessions:
// lib/viewer/get-viewer.ts turns them into a Viewer.
import "server-only";
import { createHmac } from "node:crypto";
import { passkey } from "@better-auth/passkey";
import { betterAuth } from "better-auth";
import { prismaAdapter } from "better-auth/adapters/prisma";
import { nextCookies } from "better-auth/next-js";
import { createAuthMiddleware } from "better-auth/api";
import { magicLink } from "better-auth/plugins";
import { brand } from "@/lib/brand";
import { databaseEngine } from "@/lib/database/engine";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import { addressKey, hitRateLimit, visitorAddress } from "@/lib/rate-limit";
import { sendSignInEmail } from "./mail";
import { CLAIM_COOKIE, claimCookieOptions, claimProof, signInLinkUrl } from "./sign-in-binding";

/** How long an emailed link works. */
export const SIGN_IN_LINK_MINUTES = 15;

/** The header Better Auth reads the client's address from: set by handleAuthRequest on every request, whatever the client sent. */
const CLIENT_ADDRESS_HEADER = "x-framehook-client-address";

export const auth = betterAuth({
  appName: brand.name,
  baseURL: env.PUBLIC_BASE_URL,
  basePath: "/api/auth",
  secret: authSecret(),
  database: prismaAdapter(prisma, { provider: databaseEngine(env.DATABASE_URL) === "postgres" ? "postgresql" : "sqlite" }),
  // A session lasts AUTH_SESSION_SECONDS (30 days) from its last renewal; a request that can set cookies (a route
  // handler, a server action) renews one older than AUTH_SESSION_RENEW_SECONDS (a day): lib/auth/session.ts.
  session: { expiresIn: env.AUTH_SESSION_SECONDS, updateAge: env.AUTH_SESSION_RENEW_SECONDS },
  // The email-link request goes through the sign-in page's server action, which limits it per address and per
  // email in the database (every instance counts); the HTTP endpoint is off so that nothing skips those limits.
  // The emailed link opens the app's own page (/sign-in/link), which signs in only when its button is pressed:
  // mail scanners open links but submit no forms. Better Auth's GET endpoint, which would sign in whoever opens
  // it, is off.
  disabledPaths: ["/sign-in/magic-link", "/magic-link/verify"],
  trustedOrigins: relyingParty().origins,
  socialProviders: socialProviders(),
  advanced: {
    useSecureCookies: env.NODE_ENV === "production" && env.PUBLIC_BASE_URL.startsWith("https:"),
    // The client as the app resolves it (TRUSTED_PROXY_HOPS, TRUSTED_PROXY_CIDRS), already grouped as every
    // limit of the app groups it: Better Auth's own reading of X-Forwarded-For trusts no chain of two or more.
    ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER], ipv6Subnet: 128 },
  },
  // Better Auth's limits (per client and path) counted in the database limiter, so every instance counts the same.
  // Passkey assertions are the sign-ins Better Auth's HTTP endpoints take (email links are used by the link page's
  // action); an assertion cannot be guessed, so its limit, per client, is only a flood guard.
  rateLimit: { customStorage: { consume: consumeAuthRateLimit }, customRules: { "/passkey/verify-authentication": { window: 60, max: 100 } } },
  hooks: { after: createAuthMiddleware(async (ctx) => markSignInHere(ctx)) },
  plugins: [
    magicLink({
      expiresIn: SIGN_IN_LINK_MINUTES * 60,
      // Only a hash of the token is stored: a copy of the database cannot sign anyone in.
      storeToken: "hashed",
      // Sending is limited by the sign-in action; a link's 32-character token cannot be guessed.
      sendMagicLink: ({ email, token, metadata }) => sendSignInEmail({ to: email, url: signInLinkUrl({ token, asker: metadata?.asker }) }),
    }),
    passkey({ rpID: relyingParty().id, rpName: brand.name, origin: relyingParty().origins }),
    // Server actions that sign in or out set Better Auth's cookies through next/headers.
    nextCookies(),
  ],
});

/**
 * Better Auth's HTTP endpoints (app/api/auth): the request, with the
 * client's address in CLIENT_ADDRESS_HEADER (a client's own value replaced).
 */
export function handleAuthRequest(request: Request): Promise<Response> {
  const headers = new Headers(request.headers);
  // visitorAddress gives IPv6 as its group ("2001:db8:1::/48"); without the length it is an address Better Auth accepts.
  headers.set(CLIENT_ADDRESS_HEADER, visitorAddress(request.headers).replace(/\/\d+$/, ""));
  // A new Request from the parts, not `new Request(request, …)`: on Node 24 that copy reads the
  // private state of Next's request class, which is not undici's, and throws (a 500 for every call).
  const body = request.method === "GET" || request.method === "HEAD" ? null : request.body;
  const init: RequestInit & { duplex?: "half" } = { method: request.method, headers, body, signal: request.signal, ...(body ? { duplex: "half" } : {}) };
  return auth.handler(new Request(request.url, init));
}

/** One request against Better Auth's rule for its key (client and path), in the database limiter; the key is stored hashed. */
async function consumeAuthRateLimit(key: string, rule: { window: number; max: number }) {
  const hit = await hitRateLimit({ key: `auth:${addressKey(key)}`, limit: rule.max, windowSeconds: rule.window });
  return hit.allowed ? { allowed: true, retryAfter: null } : { allowed: false, retryAfter: hit.retryAfterSeconds };
}

/**
 * A passkey assertion or an OAuth round trip (its state is bound to this
 * browser by Better Auth) signs in the browser that started it: its session
 * may keep this browser's guest. An email link earns that only when the
 * browser confirming it is the one that asked for it (lib/auth/sign-in-link.ts).
 */
function markSignInHere(ctx: { path: string; context: { newSession: { session: { id: string } } | null }; setCookie: (name: string, value: string, options: object) => unknown }) {
  const session = ctx.context.newSession;
  if (!session || !(ctx.path === "/passkey/verify-authentication" || ctx.path.startsWith("/callback/"))) return;
  ctx.setCookie(CLAIM_COOKIE, claimProof(session.session.id), claimCookieOptions());
}

/**
 * Passkeys belong to a domain (the relying party), and browsers refuse an IP
 * address as one: an app on http://127.0.0.1:3000 takes passkeys as
 * "localhost", at http://localhost:3000, as well as its own origin.
 */
function relyingParty(): { id: string; origins: string[] } {
  const base = new URL(env.PUBLIC_BASE_URL);
  if (base.hostname !== "127.0.0.1" && base.hostname !== "[::1]") return { id: base.hostname, origins: [base.origin] };
  const local = new URL(base.origin);
  local.hostname = "localhost";
  return { id: "localhost", origins: [base.origin, local.origin] };
}

/** AUTH_SECRET, or else a key derived from WEBHOOK_SECRET (as the visitor cookie's is): no new secret to configure. */
function authSecret(): string {
  return env.AUTH_SECRET ?? createHmac("sha256", env.WEBHOOK_SECRET).update("framehook auth v1").digest("base64url");
}

/** GitHub and Google sign-in switch on when both of their keys are set (docs/accounts.md). */
function socialProviders() {
  return {
    ...(env.GITHUB_CLIENT_ID && env.GITHUB_CLIENT_SECRET ? { github: { clientId: env.GITHUB_CLIENT_ID, clientSecret: env.GITHUB_CLIENT_SECRET } } : {}),
    ...(env.GOOGLE_CLIENT_ID && env.GOOGLE_CLIENT_SECRET ? { google: { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET } } : {}),
  };
}

export const enabledSocialProviders = (): ("github" | "google")[] => Object.keys(socialProviders()) as ("github" | "google")[];
