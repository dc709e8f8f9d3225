"use server";
// Asking for an email link, and using one. The answer is the same whether or not an account
// exists for the address (the link signs in or signs up alike), so the form
// tells nobody who has an account. Limited per client address, and per email
// from that address (so asking for someone's links from elsewhere never locks
// them out), in the database, so every instance counts the same attempts.
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { z } from "zod";
import { auth } from "@/lib/auth/auth";
import { emailSignInEnabled } from "@/lib/auth/mail";
import { ASKER_COOKIE, ASKER_MAX_AGE_SECONDS, askerNonce, askerTag, CLAIM_COOKIE, claimCookieOptions, claimProof, isAsker } from "@/lib/auth/sign-in-binding";
import { isLinkToken, redeemSignInLink } from "@/lib/auth/sign-in-link";
import { cookiesAreSecure } from "@/lib/viewer/get-viewer";
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
  // This browser's asker cookie; the link carries its tag, so that only this browser may keep its guest's work
  // when it confirms the link (lib/auth/sign-in-binding.ts). Kept across requests, so every link it asked for matches.
  const jar = await cookies();
  const nonce = askerNonce(jar.get(ASKER_COOKIE)?.value);
  jar.set(ASKER_COOKIE, nonce, { httpOnly: true, sameSite: "lax", secure: cookiesAreSecure(), path: "/sign-in", maxAge: ASKER_MAX_AGE_SECONDS });
  try {
    await auth.api.signInMagicLink({
      body: { email, metadata: { asker: askerTag(nonce) } },
      headers: requestHeaders,
    });
  } catch (error) {
    console.error("[framehook] could not send a sign-in link:", error instanceof Error ? error.message : error);
    return { status: "error", message: "The sign-in email could not be sent. Try again in a minute.", email };
  }
  return { status: "sent", email };
}

export type ConfirmLinkState = { status: "idle" } | { status: "error"; message: string };

/**
 * The link page's button: uses the link (the token and the asking browser's tag are bound to the form, as the
 * page read them from the link). The session may keep this browser's guest only when this browser asked for the
 * link; either way it signs in, and /welcome says what happened to the guest.
 */
export async function confirmSignInLink(token: unknown, asker: unknown): Promise<ConfirmLinkState> {
  if (!isLinkToken(token)) return { status: "error", message: LINK_EXPIRED };
  const jar = await cookies();
  const signedIn = await redeemSignInLink({ token, headers: await headers() });
  if (!signedIn) return { status: "error", message: LINK_EXPIRED };
  const here = isAsker({ nonce: jar.get(ASKER_COOKIE)?.value, tag: typeof asker === "string" ? asker : null });
  if (here) jar.set(CLAIM_COOKIE, claimProof(signedIn.sessionId), claimCookieOptions());
  else jar.delete(CLAIM_COOKIE);
  redirect("/welcome");
}

const LINK_EXPIRED = "That sign-in link has expired or was already used. Ask for a new one.";
