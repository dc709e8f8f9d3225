// One error type for everything the app tells a client: a code, its HTTP
// status, and a message safe to show. Internal detail goes to the log only.

export const ERROR_STATUS = {
  invalid_input: 422,
  idempotency_key_reused: 422,
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
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
  /** An owner's uploads would pass UPLOAD_QUOTA_BYTES. */
  upload_quota: 413,
  insufficient_credits: 402,
  gateway_rejected: 502,
  gateway_unavailable: 503,
  storage_unavailable: 503,
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

export function errorResponse(error: unknown): Response {
  const appError =
    error instanceof AppError ? error : new AppError("internal", "Something went wrong. Please try again.");
  if (!(error instanceof AppError)) console.error("[framehook] unexpected error", error);
  const { code, message, fields } = appError;
  return Response.json(
    { error: { code, message, ...(fields ? { fields } : {}) } },
    { status: appError.status, headers: appError.headers },
  );
}
