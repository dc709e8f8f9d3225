// One error type for everything the app tells a client: a code, its HTTP
// status, and a message safe to show. Internal detail goes to the log only.
import { isDatabaseUnavailable, isUniqueViolation } from "@/lib/database/errors";

export const ERROR_STATUS = {
  invalid_input: 422,
  idempotency_key_reused: 422,
  bad_request: 400,
  unauthorized: 401,
  /** REQUIRE_SIGN_IN: a guest tried to generate or upload. */
  sign_in_required: 401,
  /** Deleting an account: the session was not signed in within the last day (lib/viewer/delete-account.ts). */
  fresh_sign_in_required: 401,
  not_found: 404,
  /** CREDITS_ENABLED=false: this server has no credits to show or sell. */
  credits_disabled: 404,
  method_not_allowed: 405,
  conflict: 409,
  /** A signed link past its expiry, or an input deleted since. */
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  /** The spending caps (lib/generations/spend-limit.ts): the owner's, the client address's, everyone's. */
  spend_limit: 429,
  address_spend_limit: 429,
  total_spend_limit: 429,
  /** An owner's uploads would pass UPLOAD_QUOTA_BYTES; anonymous uploads from one address, UPLOAD_ADDRESS_QUOTA_BYTES. */
  upload_quota: 413,
  address_upload_quota: 413,
  /** Everyone's unused uploads would pass UPLOAD_UNUSED_TOTAL_BYTES: the server takes no more for now. */
  upload_capacity: 503,
  insufficient_credits: 402,
  gateway_rejected: 502,
  gateway_unavailable: 503,
  storage_unavailable: 503,
  /** Stripe (or the payments simulator) did not answer what a page needed, e.g. a purchase's receipt. */
  payments_unavailable: 503,
  /** Media work (lib/media/media-pool.ts) has no free slot in time: busy, never a verdict on the file. */
  media_busy: 503,
  /** Work that needs a decoded frame (FFmpeg) on a server without it: `npm run doctor` says how to install it. */
  media_toolchain_missing: 503,
  /** The database is down, restarting, or too busy to answer in time: come back shortly. */
  database_unavailable: 503,
  /** This instance is stopping (SIGTERM): the client retries, and the proxy sends it to another. */
  shutting_down: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: Record<string, string[]>,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** Seconds a client is asked to wait when the database is unavailable: about what a server restart or a failover takes. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/**
 * What to tell the client about any error: an AppError as it is; an outage
 * of the database as a 503 to retry (it is not the request's fault, nor the
 * app's bug); a unique-key conflict another request won as a 409; anything else as a 500 that names nothing. The detail of the
 * last two goes to the log.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    console.error("[framehook] database unavailable:", error instanceof Error ? error.message : error);
    return new AppError("database_unavailable", "The service is briefly unavailable. Please try again in a few seconds.", undefined, {
      "Retry-After": String(DATABASE_RETRY_AFTER_SECONDS),
    });
  }
  if (isUniqueViolation(error)) {
    // Another request wrote the same row first: nothing is lost, and trying again finds it.
    console.error("[framehook] unique-key conflict:", error instanceof Error ? error.message : error);
    return new AppError("conflict", "That was changed by another request at the same time. Please try again.");
  }
  console.error("[framehook] unexpected error", error);
  return new AppError("internal", "Something went wrong. Please try again.");
}

export function errorResponse(error: unknown): Response {
  const appError = toAppError(error);
  const { code, message, fields } = appError;
  return Response.json(
    { error: { code, message, ...(fields ? { fields } : {}) } },
    { status: appError.status, headers: appError.headers },
  );
}
