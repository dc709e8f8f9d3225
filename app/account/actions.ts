"use server";
// The account page's actions. Each acts on the signed-in account only: a
// session id or passkey from the form is matched against the account's own.
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { auth } from "@/lib/auth/auth";
import { prisma } from "@/lib/db";
import { AppError } from "@/lib/errors";
import { chooseReadyEmails } from "@/lib/notifications/email-settings";
import { deleteAccount } from "@/lib/viewer/delete-account";
import { getViewer, viewerCookieOptions, visitorCookieName } from "@/lib/viewer/get-viewer";

async function signedInAccount() {
  const viewer = await getViewer();
  if (!viewer?.account) redirect("/sign-in");
  return viewer.account;
}

/** Signing out also starts a fresh guest (proxy.ts issues a new cookie): the claimed guest's id is not reused. */
async function forgetGuest() {
  // Deleted with the attributes it was set with: a __Host- cookie is only accepted (and so only cleared) Secure, Path=/.
  const { secure, path } = viewerCookieOptions();
  (await cookies()).set(visitorCookieName(), "", { secure, path, maxAge: 0 });
}

export async function signOut(): Promise<void> {
  await auth.api.signOut({ headers: await headers() });
  await forgetGuest();
  redirect("/");
}

export async function signOutSession(form: FormData): Promise<void> {
  const account = await signedInAccount();
  const id = form.get("sessionId");
  if (typeof id !== "string") return;
  await prisma.session.deleteMany({ where: { id, userId: account.userId } });
  if (id === account.sessionId) {
    await forgetGuest();
    redirect("/");
  }
  redirect("/account");
}

/** The account-wide setting: an email when each video is ready (also the form's box's default). */
export async function chooseReadyEmailsAction(form: FormData): Promise<void> {
  const account = await signedInAccount();
  await chooseReadyEmails({ userId: account.userId, on: form.get("readyEmails") === "on" });
  redirect("/account?saved=emails");
}

export async function signOutEverywhere(): Promise<void> {
  const account = await signedInAccount();
  await prisma.session.deleteMany({ where: { userId: account.userId } });
  await forgetGuest();
  redirect("/");
}

export type DeleteAccountState = { status: "idle" } | { status: "error"; message: string };

export async function deleteOwnAccount(_previous: DeleteAccountState, form: FormData): Promise<DeleteAccountState> {
  const account = await signedInAccount();
  const typed = form.get("confirmEmail");
  if (typeof typed !== "string" || typed.trim().toLowerCase() !== account.email.toLowerCase()) {
    return { status: "error", message: `Type ${account.email} to confirm.` };
  }
  try {
    await deleteAccount({ userId: account.userId, sessionId: account.sessionId });
  } catch (error) {
    if (error instanceof AppError) return { status: "error", message: error.message };
    throw error;
  }
  await forgetGuest();
  redirect("/?deleted=1");
}
