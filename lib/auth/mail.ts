// Where sign-in emails go. With SMTP_URL, through that server (any provider's
// SMTP endpoint). Without it, in development only, into the development
// mailbox (/dev/mailbox, rows in the DevMail table) and the terminal, so that
// `npm run dev` signs people in with zero configuration. In production without
// SMTP_URL, email sign-in is off and the doctor says so.
import "server-only";
import { randomUUID } from "node:crypto";
import { brand } from "@/lib/brand";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";

export type SignInEmail = { to: string; url: string };

/** True where email links can be delivered: a transport is configured, or the development mailbox stands in. */
export const emailSignInEnabled = () => Boolean(env.SMTP_URL) || devMailboxEnabled();

/** The development mailbox: never in production, never when a real transport is set. */
export const devMailboxEnabled = () => env.NODE_ENV !== "production" && !env.SMTP_URL;

export function signInMessage({ to, url }: SignInEmail) {
  const subject = `Sign in to ${brand.name}`;
  const text = [
    `Open this link to sign in to ${brand.name}:`,
    "",
    url,
    "",
    "It works once, within 15 minutes. If you did not ask for it, ignore this email: nobody can sign in without the link.",
  ].join("\n");
  return { from: env.MAIL_FROM, to, subject, text };
}

export async function sendSignInEmail(email: SignInEmail): Promise<void> {
  await deliverMail({ ...signInMessage(email), link: { url: email.url, label: "Open the sign-in link" } });
  if (!env.SMTP_URL) console.log(`[framehook] sign-in link for ${email.to} (development mailbox, /dev/mailbox): ${email.url}`);
}

export type OutgoingMail = {
  to: string;
  subject: string;
  text: string;
  html?: string;
  headers?: Record<string, string>;
  /** Inline images (`cid:` in the HTML). */
  attachments?: { filename: string; content: Buffer; contentType: string; cid: string }[];
  /** The link the development mailbox offers for it. */
  link: { url: string; label: string };
};

/** Sends through SMTP_URL, or stores in the development mailbox; throws when neither is possible or the server refuses. */
export async function deliverMail({ link, ...message }: OutgoingMail): Promise<void> {
  if (env.SMTP_URL) {
    const { createTransport } = await import("nodemailer");
    const transport = createTransport({ url: env.SMTP_URL, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    try {
      await transport.sendMail({ from: env.MAIL_FROM, ...message });
    } finally {
      transport.close();
    }
    return;
  }
  if (!devMailboxEnabled()) throw new Error("Email is off: set SMTP_URL (docs/accounts.md)");
  await prisma.devMail.create({ data: { id: randomUUID(), to: message.to, subject: message.subject, text: message.text, url: link.url, linkLabel: link.label } });
}

/** Checks SMTP_URL's server answers and accepts our credentials, sending nothing (npm run doctor). */
export async function verifyMailTransport(): Promise<void> {
  if (!env.SMTP_URL) throw new Error("SMTP_URL is not set");
  const { createTransport } = await import("nodemailer");
  const transport = createTransport({ url: env.SMTP_URL, connectionTimeout: 5_000, greetingTimeout: 5_000 });
  try {
    await transport.verify();
  } finally {
    transport.close();
  }
}
