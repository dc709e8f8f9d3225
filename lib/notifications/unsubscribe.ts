// Unsubscribing from ready emails by a link, with no session: the token
// (unsubscribe-token.ts) is the credential.
//   POST /api/unsubscribe/<token> (a mail provider's one-click button, RFC 8058,
//     or the button on /unsubscribe/<token>) → unsubscribed, 200 (the page's form: 303 back to it)
//   GET of either URL (a person, or a mail scanner following links) → nothing changes
//   a token the server did not make → 404, nothing changes
import "server-only";
import { env } from "@/lib/env";
import { unsubscribeFromReadyEmails } from "./email-settings";
import { userIdOfUnsubscribeToken } from "./unsubscribe-token";

/** The account the link names, or null: what the page shows before anyone presses its button. */
export const accountOfUnsubscribeLink = (token: string): string | null => userIdOfUnsubscribeToken(token, env.WEBHOOK_SECRET);

export async function unsubscribeByLink({ token }: { token: string }): Promise<"unsubscribed" | "not_found"> {
  const userId = accountOfUnsubscribeLink(token);
  if (!userId) return "not_found";
  await unsubscribeFromReadyEmails({ userId });
  return "unsubscribed";
}
