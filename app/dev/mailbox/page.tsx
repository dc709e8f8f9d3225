// The development mailbox: emails (sign-in links, videos ready) `npm run dev` would have sent, when
// no mail transport is configured. Never in production (a 404 there, and with
// SMTP_URL set), and only to this computer: it would let anyone open anyone's sign-in link.
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import { formatTimestamp } from "@/app/_components/format";
import { devMailboxEnabled } from "@/lib/auth/mail";
import { pageMetadata } from "@/lib/brand/page-metadata";
import { prisma } from "@/lib/db";
import { socketPeerIsLoopback } from "@/lib/viewer/peer-address";

export const dynamic = "force-dynamic";
export const metadata = { ...pageMetadata({ title: "Development mailbox", description: "Emails sent in development." }), robots: { index: false } };

const SHOWN = 20;

export default async function DevMailboxPage() {
  // Only for this computer: `npm run dev` opened to the network (DEV_LISTEN_HOST) must not hand out sign-in links.
  if (!devMailboxEnabled() || !socketPeerIsLoopback(await headers())) notFound();
  const messages = await prisma.devMail.findMany({ orderBy: { createdAt: "desc" }, take: SHOWN });
  return (
    <main id="main" className="mx-auto max-w-2xl space-y-4 px-4 py-8 sm:px-6">
      <h1 className="text-xl font-semibold">Development mailbox</h1>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        No mail server is set up (SMTP_URL), so emails land here, newest first. This page does not exist in production.
      </p>
      {messages.length === 0 ? (
        <p className="text-sm">No emails yet. Ask for a sign-in link on the sign-in page.</p>
      ) : (
        <ul className="space-y-3">
          {messages.map((message) => (
            <li key={message.id} className="space-y-1 rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 dark:bg-zinc-900 dark:ring-zinc-800">
              <p className="text-sm">
                <span className="font-medium">To {message.to}</span>
                <span className="text-zinc-500"> · {formatTimestamp(message.createdAt.toISOString())}</span>
              </p>
              <p className="text-sm font-semibold">{message.subject}</p>
              <p className="whitespace-pre-line text-sm text-zinc-600 dark:text-zinc-400">{message.text}</p>
              <a href={message.url} className="inline-block rounded text-sm font-medium text-brand-700 underline dark:text-brand-400">
                {message.linkLabel}
              </a>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
