"use server";
// The claim prompt's answer. The guest is the one of this browser's signed
// cookie (getViewer), the account the one signed in: nothing comes from the form.
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { AppError } from "@/lib/errors";
import { visitorKey } from "@/lib/rate-limit";
import { claimGuest } from "@/lib/viewer/claim-guest";
import { getViewer, viewerCookieOptions, viewerSecret, visitorCookieName } from "@/lib/viewer/get-viewer";
import { newViewerId, signViewerCookie } from "@/lib/viewer/viewer-cookie";

export type ClaimState = { status: "idle" } | { status: "kept"; generations: number } | { status: "error"; message: string };

const NOT_ASKED_HERE = "This browser opened a sign-in link asked for in another browser, so what it made as a guest stays here. To keep it, sign in from this browser.";

export async function keepGuestWork(): Promise<ClaimState> {
  const viewer = await getViewer();
  if (!viewer?.account) redirect("/sign-in");
  if (!viewer.guestId) redirect("/");
  if (!viewer.mayClaimGuest) return { status: "error", message: NOT_ASKED_HERE };
  try {
    const { generations } = await claimGuest({ guestId: viewer.guestId, userId: viewer.account.userId, visitor: visitorKey(await headers()) });
    console.log(`[framehook] ${viewer.id} kept ${generations} generations made as a guest`);
    // The claimed guest belongs to the account now: the browser becomes a fresh guest, which is what it is once
    // the session ends (signed out elsewhere, expired), never the claimed guest again.
    (await cookies()).set(visitorCookieName(), signViewerCookie(newViewerId(), viewerSecret()), viewerCookieOptions());
    return { status: "kept", generations };
  } catch (error) {
    if (error instanceof AppError) return { status: "error", message: error.message };
    throw error;
  }
}
