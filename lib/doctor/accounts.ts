// Can people sign in? Email links need a way out: SMTP_URL (checked by
// connecting and authenticating, sending nothing), or in development the
// development mailbox. Without either, in production, sign-in is off: guests
// still work, so this is a warning, not a failure.
import { fail, ok, warn, type CheckResult } from "./check";

const NAME = "Sign-in";

export async function checkAccounts({
  smtpUrl,
  production,
  verifyTransport,
  socialProviders,
}: {
  smtpUrl: string | undefined;
  production: boolean;
  verifyTransport: () => Promise<void>;
  socialProviders: string[];
}): Promise<CheckResult> {
  const also = socialProviders.length ? `; also ${socialProviders.join(" and ")}` : "";
  if (!smtpUrl) {
    if (production) return warn(NAME, "email sign-in is off: no SMTP_URL (guests still work, and keep nothing across devices)", "set SMTP_URL to your provider's SMTP endpoint (docs/accounts.md)");
    return ok(NAME, `email links go to the development mailbox (/dev/mailbox) and this terminal; passkeys after the first sign-in${also}`);
  }
  const host = new URL(smtpUrl).host;
  try {
    await verifyTransport();
    return ok(NAME, `email links go through ${host}, which accepted our credentials; passkeys after the first sign-in${also}`);
  } catch (error) {
    // The URL carries a password: only its host is ever printed.
    const reason = error instanceof Error ? error.message.replace(smtpUrl, host) : String(error);
    return fail(NAME, `the mail server at ${host} refused or did not answer: ${reason}`, "check SMTP_URL (smtp://user:password@host:587, or smtps:// for port 465)");
  }
}
