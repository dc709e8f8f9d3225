// The ready emails' sender, in the app's background work: the outcome write
// made a ReadyEmail row due in the transaction that settled the video; this
// sends it after the commit. Any instance may run it (the outcome write's
// instance at once, the cron, a timer for the next retry), and each row is
// claimed by one (ready-email-outbox.ts). An SMTP failure puts the row back
// with a doubling wait; past its giveUpAt it is given up and logged.
//   due row → claimed → sent (SENT)
//            → the video deleted, its owner gone, unsubscribed since, or email off → CANCELLED
//            → a SUCCESS whose still is on its way (at most STILL_WAIT_MS) → due again shortly
//            → the mail server failed → due again after the backoff, or GAVE_UP past giveUpAt
// A sender killed between the server's acceptance and SENT leaves a lease that
// lapses, and the email goes again: the one case where a person may get two.
import "server-only";
import { deliverMail, emailSignInEnabled } from "@/lib/auth/mail";
import { prisma } from "@/lib/db";
import { env } from "@/lib/env";
import type { ReadyEmail } from "@/lib/generated/prisma/client";
import { isDraining } from "@/lib/lifecycle/drain";
import { getMediaStorage, mediaStorageEnabled } from "@/lib/storage/storage";
import { readyEmailMessage } from "./ready-email-message";
import {
  cancelReadyEmail,
  claimReadyEmail,
  deferReadyEmail,
  findDueReadyEmails,
  giveUpReadyEmail,
  markReadyEmailSent,
  nextReadyEmailAt,
  retryReadyEmailAt,
} from "./ready-email-outbox";
import { unsubscribeTokenFor } from "./unsubscribe-token";

const BATCH = 10;
const RETRY_MAX_MS = 15 * 60_000;
/** How long a SUCCESS's email waits for the video's still (copied after the outcome), then goes without it. */
const STILL_WAIT_MS = 90_000;
const STILL_RECHECK_MS = 2_000;
/** Stills larger than this are left out of the email (the link shows the video). */
const STILL_MAX_BYTES = 300_000;
const ACCOUNT_PREFIX = "user:";

export type SendReport = { sent: number; retried: number; gaveUp: number; cancelled: number };

let pumping = false;
let again = false;
let wake: { at: number; timer: ReturnType<typeof setTimeout> } | null = null;

/**
 * Sends the due ready emails in the background. A hint: asks made while a
 * round runs start another round after it. The rows are the truth; what this
 * process does not get to, the cron or another instance does.
 */
export function requestReadyEmails(): void {
  if (isDraining()) return;
  if (pumping) {
    again = true;
    return;
  }
  void pump();
}

async function pump(): Promise<void> {
  pumping = true;
  try {
    do {
      again = false;
      await sendDueReadyEmails();
    } while (again);
    await wakeForNext();
  } catch (error) {
    console.error("[framehook] ready emails could not be sent this round", error);
  } finally {
    pumping = false;
  }
}

/** Sets this process's one timer for the next waiting row (a retry, a still waited for). */
async function wakeForNext(): Promise<void> {
  const next = await nextReadyEmailAt();
  if (!next) return;
  const at = Math.max(next.getTime(), Date.now() + 100);
  if (wake && wake.at <= at) return;
  if (wake) clearTimeout(wake.timer);
  const timer = setTimeout(() => {
    wake = null;
    requestReadyEmails();
  }, at - Date.now());
  timer.unref();
  wake = { at, timer };
}

/** Every due row this caller can claim, in batches: the cron's entry point too. */
export async function sendDueReadyEmails({ maxBatches = 20 }: { maxBatches?: number } = {}): Promise<SendReport> {
  const report: SendReport = { sent: 0, retried: 0, gaveUp: 0, cancelled: 0 };
  for (let batch = 0; batch < maxBatches && !isDraining(); batch++) {
    const rows = await findDueReadyEmails({ now: new Date(), take: BATCH });
    if (rows.length === 0) break;
    const outcomes = await Promise.all(rows.map((row) => attempt(row)));
    for (const outcome of outcomes) if (outcome) report[outcome]++;
    if (outcomes.every((outcome) => outcome === null)) break;
  }
  return report;
}

type Outcome = keyof SendReport | null;

async function attempt(row: ReadyEmail): Promise<Outcome> {
  const attempts = await claimReadyEmail({ row, now: new Date() });
  if (attempts === null) return null;
  const claimed = { id: row.id, attempts };
  try {
    return await sendClaimed(row, claimed);
  } catch (error) {
    const message = error instanceof Error ? error.message.slice(0, 300) : String(error).slice(0, 300);
    const wait = Math.min(env.READY_EMAIL_RETRY_MS * 2 ** (attempts - 1), RETRY_MAX_MS);
    const next = new Date(Date.now() + wait);
    if (next > row.giveUpAt) {
      await giveUpReadyEmail(claimed, message);
      console.error(`[framehook] gave up the ${row.outcome} email of generation ${row.generationId} after ${attempts} attempts: ${message}`);
      return "gaveUp";
    }
    await retryReadyEmailAt(claimed, next, message);
    console.warn(`[framehook] the ${row.outcome} email of generation ${row.generationId} failed (attempt ${attempts}), next try in ${Math.round(wait / 1000)} s: ${message}`);
    return "retried";
  }
}

async function sendClaimed(row: ReadyEmail, claimed: { id: number; attempts: number }): Promise<Outcome> {
  const generation = await prisma.generation.findUnique({
    where: { id: row.generationId },
    select: {
      id: true,
      prompt: true,
      state: true,
      ownerId: true,
      errorMessage: true,
      deletedAt: true,
      createdAt: true,
      mediaCopies: { where: { position: 0 }, select: { state: true, stillKey: true, stillCheckedAt: true } },
    },
  });
  const userId = generation?.ownerId.startsWith(ACCOUNT_PREFIX) ? generation.ownerId.slice(ACCOUNT_PREFIX.length) : null;
  const user = userId ? await prisma.user.findUnique({ where: { id: userId }, select: { email: true, emailSettings: { select: { unsubscribedAt: true } } } }) : null;
  const unsubscribedAt = user?.emailSettings?.unsubscribedAt;
  const why = !generation || generation.deletedAt
    ? "the video was deleted"
    : !user || !userId
      ? "no account to write to"
      : unsubscribedAt && unsubscribedAt >= generation.createdAt
        ? "unsubscribed"
        : generation.state !== row.outcome
          ? `the video is now ${generation.state}`
          : !emailSignInEnabled()
            ? "email is off (SMTP_URL)"
            : null;
  if (why || !generation || !user || !userId) {
    await cancelReadyEmail(claimed, why ?? "cancelled");
    return "cancelled";
  }

  const copy = generation.mediaCopies[0];
  const stillPending =
    row.outcome === "SUCCESS" &&
    mediaStorageEnabled() &&
    (!copy || copy.state === "PENDING" || copy.state === "COPYING" || (copy.state === "DONE" && !copy.stillKey && !copy.stillCheckedAt));
  if (stillPending && Date.now() < row.createdAt.getTime() + STILL_WAIT_MS) {
    await deferReadyEmail(claimed, new Date(Date.now() + STILL_RECHECK_MS));
    return null;
  }

  const still = row.outcome === "SUCCESS" && copy?.state === "DONE" && copy.stillKey ? await readStill(copy.stillKey) : null;
  await deliverMail(
    readyEmailMessage({
      to: user.email,
      generationId: generation.id,
      outcome: row.outcome === "SUCCESS" ? "SUCCESS" : "FAILURE",
      prompt: generation.prompt,
      reason: generation.errorMessage,
      still,
      baseUrl: env.PUBLIC_BASE_URL,
      unsubscribeToken: unsubscribeTokenFor(userId, env.WEBHOOK_SECRET),
    }),
  );
  if (!(await markReadyEmailSent(claimed, new Date()))) {
    console.warn(`[framehook] the ${row.outcome} email of generation ${row.generationId} was sent after its lease lapsed`);
  }
  return "sent";
}

/** The still's bytes, or null when it is missing, unreadable or too large for an email. */
async function readStill(key: string): Promise<Buffer | null> {
  try {
    const storage = await getMediaStorage();
    const object = storage ? await storage.get({ key }) : null;
    if (!object) return null;
    if (object.size > STILL_MAX_BYTES) {
      object.body.destroy();
      return null;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of object.body) {
      size += (chunk as Buffer).length;
      if (size > STILL_MAX_BYTES) {
        object.body.destroy();
        return null;
      }
      chunks.push(chunk as Buffer);
    }
    return Buffer.concat(chunks);
  } catch (error) {
    console.warn(`[framehook] a ready email goes without its still: ${error instanceof Error ? error.message : error}`);
    return null;
  }
}
