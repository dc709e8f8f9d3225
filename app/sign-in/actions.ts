"use server";
// Asking for an email link. The answer is the same whether or not an account
// exists for the address (the link signs in or signs up alike), so the form
// tells nobody who has an account. Limited per client address, and per email
// from that address (so asking for someone's links from elsewhere never locks
// them out), in the database, so every instance counts the same attempts.
import { headers } from "next/headers";
import { z } from "zod";
import { auth } from "@/lib/auth/auth";
import { emailSignInEnabled } from "@/lib/auth/mail";
import { hitRateLimit, visitorAddress, addressKey } from "@/lib/rate-limit";

export type SignInLinkState = { status: "idle" } | { status: "sent"; email: string } | { status: "error"; message: string; email?: string };

const LINKS_PER_EMAIL = 5;
const LINKS_PER_ADDRESS = 20;
const WINDOW_SECONDS = 15 * 60;
const emailSchema = z.email().max(254);

export async function requestSignInLink(_previous: SignInLinkState, form: FormData): Promise<SignInLinkState> {
  const raw = form.get("email");
  const typed = typeof raw === "string" ? raw.trim() : "";
  const parsed = emailSchema.safeParse(typed.toLowerCase());
  if (!parsed.success) return { status: "error", message: "Enter an email address, like name@example.com.", email: typed };
  const email = parsed.data;
  if (!emailSignInEnabled()) return { status: "error", message: "Email sign-in is not set up on this server.", email };

  const requestHeaders = await headers();
  const address = visitorAddress(requestHeaders);
  for (const [key, limit] of [
    [`sign-in-link:address:${addressKey(address)}`, LINKS_PER_ADDRESS],
    // Keyed hashes: the limits table never holds an address or an email.
    [`sign-in-link:email:${addressKey(`${email}|${address}`)}`, LINKS_PER_EMAIL],
  ] as const) {
    const hit = await hitRateLimit({ key, limit, windowSeconds: WINDOW_SECONDS });
    if (!hit.allowed) {
      return { status: "error", message: `Too many sign-in links asked for. Try again in ${Math.ceil(hit.retryAfterSeconds / 60)} min.`, email };
    }
  }
  try {
    await auth.api.signInMagicLink({
      body: { email, callbackURL: "/welcome", newUserCallbackURL: "/welcome", errorCallbackURL: "/sign-in" },
      headers: requestHeaders,
    });
  } catch (error) {
    console.error("[framehook] could not send a sign-in link:", error instanceof Error ? error.message : error);
    return { status: "error", message: "The sign-in email could not be sent. Try again in a minute.", email };
  }
  return { status: "sent", email };
}
