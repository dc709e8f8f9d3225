// Emails when a video is ready, through a real SMTP server on loopback: the
// outcome write makes one due per video and outcome, whatever how many
// reports settle it (duplicate callbacks, a poll racing a callback, two
// instances); a failure's email says why and that nothing was charged; a mail
// server that is down delays the email, which then arrives once; a mail
// scanner's GET of the unsubscribe links changes nothing, the one-click POST
// unsubscribes. The outbox's claims: one sender per row, fenced by its attempts.
import { afterAll, describe, expect, test } from "vitest";
import { freePort } from "../../scripts/free-port";
import { startApp, waitFor } from "../support/app";
import { browserFor, signInByEmail, type Browser } from "../support/accounts";
import { deliveryOutcomes } from "../support/app-records";
import { startMailSink } from "../support/mail-sink";
import { mailParts } from "../support/mail-parts";
import { startNextServer, type NextServer } from "../support/next-server";
import { uniqueMarker } from "../support/simulator-control";
import { testEngine } from "../support/test-database";

const smtpPort = await freePort();
let sink = await startMailSink({ port: smtpPort });
const app = await startApp({ env: { SMTP_URL: sink.url, READY_EMAIL_RETRY_MS: "300" } });
const { prisma } = await import("@/lib/db");
const extra: NextServer[] = [];

afterAll(async () => {
  for (const server of extra) await server.kill();
  await app.close();
  await sink.close();
});

const MODEL = "alpha-2.5-text-to-video-480p";
const address = (name: string) => `${name}-${uniqueMarker("r").replace(/\W/g, "").toLowerCase()}@example.com`;

async function signedIn(name: string): Promise<{ browser: Browser; email: string; userId: string }> {
  const browser = browserFor(app.baseUrl);
  await browser("/");
  const email = address(name);
  const userId = await signInByEmail({ app, sink, browser, email });
  return { browser, email, userId };
}

async function submit(browser: Browser, prompt: string, extraBody: Record<string, unknown> = { emailWhenReady: true }): Promise<string> {
  const response = await browser("/api/generations", { method: "POST", json: { model: MODEL, input: { prompt, duration: 2 }, ...extraBody } });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

const settledRow = (id: string) =>
  waitFor(async () => {
    const row = await prisma.generation.findUniqueOrThrow({ where: { id } });
    return row.state === "SUCCESS" || row.state === "FAILURE" ? row : null;
  }, 60_000, `generation ${id} to settle`);

const sentEmail = (generationId: string) =>
  waitFor(async () => {
    const row = await prisma.readyEmail.findFirst({ where: { generationId } });
    return row?.state === "SENT" ? row : null;
  }, 120_000, `the ready email of ${generationId} to be sent`);

const mailsTo = (email: string) => sink.received.filter((m) => m.to.includes(email));
/** Emails about videos (the sign-in link was the first). */
const readyMailsTo = (email: string) => mailsTo(email).filter((m) => !mailParts(m.raw).header("subject")?.startsWith("Sign in"));

/** Every callback the simulator will send for the marker's task has been answered. */
const callbacksDone = (marker: string, count: number) =>
  waitFor(async () => (await app.simulator.callbacks(marker)).filter((c) => c.status !== "pending").length >= count, 60_000, `${count} callbacks of ${marker}`);

describe(`ready emails (${testEngine()})`, { timeout: 240_000 }, () => {
  test("a success delivered five times: one email, with the prompt's first line escaped, the still inline and a link to the video's page", async () => {
    const { browser, email } = await signedIn("five");
    const marker = uniqueMarker("five");
    await app.simulator.scenario({ match: marker, callback: { duplicates: 4 } });
    const id = await submit(browser, `<b>Dawn</b> & "fog" ${marker}\nsecond line, not in the email`);
    expect((await prisma.generation.findUniqueOrThrow({ where: { id } })).emailWhenReady).toBe(true);
    await settledRow(id);
    await callbacksDone(marker, 5);
    await waitFor(async () => (await prisma.delivery.count({ where: { generationId: id, source: "CALLBACK" } })) === 5, 60_000, "five callbacks recorded");
    expect(await deliveryOutcomes(prisma, id)).toMatchObject({ APPLIED: 1, DUPLICATE: 4 });
    const row = await sentEmail(id);
    expect(row).toMatchObject({ outcome: "SUCCESS", attempts: 1 });
    expect(await prisma.readyEmail.count({ where: { generationId: id } })).toBe(1);

    const mails = readyMailsTo(email);
    expect(mails).toHaveLength(1);
    const mail = mailParts(mails[0]!.raw);
    expect(mail.header("subject")).toBe(`Your video is ready: <b>Dawn</b> & "fog" ${marker}`);
    const videoUrl = `${app.baseUrl}/generations/${id}`;
    expect(mail.text).toContain(`Watch it: ${videoUrl}`);
    expect(mail.text).not.toContain("second line");
    expect(mail.html).toContain("&lt;b&gt;Dawn&lt;/b&gt; &amp; &quot;fog&quot;");
    expect(mail.html).not.toContain("<b>Dawn");
    expect(mail.html).toContain(`href="${videoUrl}"`);
    expect(mail.html).toContain('src="cid:still@framehook"');
    expect(mail.attachments).toEqual([expect.stringMatching(/^image\/jpeg/)]);
    // The link opens the video for its owner; elsewhere it asks to sign in and shows nothing of it.
    const page = await browser(`/generations/${id}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(marker);
    const stranger = browserFor(app.baseUrl);
    const elsewhere = await stranger(`/generations/${id}`);
    expect(elsewhere.status).toBe(404);
    const strangerText = await elsewhere.text();
    expect(strangerText).toContain("Sign in");
    expect(strangerText).not.toContain(marker);
  });

  test("a failure's email gives the reason and says nothing was charged", async () => {
    const { browser, email } = await signedIn("fail");
    const marker = uniqueMarker("fail");
    await app.simulator.scenario({ match: marker, outcome: "failure", failCode: "content_policy", failMsg: "Prompt refused <script>x</script>" });
    const id = await submit(browser, `a storm ${marker}`);
    expect((await settledRow(id)).state).toBe("FAILURE");
    await sentEmail(id);
    const mails = readyMailsTo(email);
    expect(mails).toHaveLength(1);
    const mail = mailParts(mails[0]!.raw);
    expect(mail.header("subject")).toBe(`Your video could not be made: a storm ${marker}`);
    expect(mail.text).toContain("Why: Prompt refused <script>x</script>");
    expect(mail.text).toContain("You were not charged");
    expect(mail.html).toContain("Prompt refused &lt;script&gt;x&lt;/script&gt;");
    expect(mail.html).toContain("You were not charged");
    expect(mail.attachments).toEqual([]);
  });

  test("nobody asked: no email, no outbox row", async () => {
    const { browser, email } = await signedIn("quiet");
    const id = await submit(browser, `quiet ${uniqueMarker("quiet")}`, { emailWhenReady: false });
    await settledRow(id);
    // The choice is remembered: a submission that makes none uses it.
    const again = await submit(browser, `quiet again ${uniqueMarker("quiet")}`, {});
    await settledRow(again);
    expect(await prisma.readyEmail.count({ where: { generationId: { in: [id, again] } } })).toBe(0);
    expect(readyMailsTo(email)).toHaveLength(0);
  });

  test("a success racing polls and its callback (two instances on PostgreSQL): one email", async () => {
    const { browser, email } = await signedIn("race");
    const instances = [browser];
    if (testEngine() === "postgres") {
      // A second instance on the same database (SQLite is one process's database).
      const port = await freePort();
      const second = await startNextServer({ port, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
      extra.push(second);
      const other = browserFor(second.url);
      for (const [name, value] of browser.jar) other.jar.set(name, value);
      instances.push(other);
    }
    const marker = uniqueMarker("race");
    // The callback arrives once the task is stale, while every instance's readers poll it.
    await app.simulator.scenario({ match: marker, callback: { delayMs: 1_100, duplicates: 1 } });
    const id = await submit(browser, `a race ${marker}`);
    await Promise.all(
      instances.map(async (b) => {
        for (let i = 0; i < 200; i++) {
          const response = await b(`/api/generations/${id}`);
          const body = (await response.json()) as { state: string };
          if (body.state !== "PENDING" && body.state !== "SUBMITTING") return;
        }
      }),
    );
    await callbacksDone(marker, 2);
    await waitFor(async () => (await prisma.delivery.count({ where: { generationId: id, source: "CALLBACK" } })) === 2, 60_000, "both callbacks recorded");
    await sentEmail(id);
    const outcomes = await deliveryOutcomes(prisma, id);
    expect(outcomes.APPLIED).toBe(1);
    expect(await prisma.readyEmail.count({ where: { generationId: id } })).toBe(1);
    expect(readyMailsTo(email)).toHaveLength(1);
  });

  test("the mail server down, then up: the email waits, is retried with backoff and arrives once", async () => {
    const { browser, email } = await signedIn("down");
    await sink.close();
    const marker = uniqueMarker("down");
    const id = await submit(browser, `while the mail is down ${marker}`);
    await settledRow(id);
    const failing = await waitFor(async () => {
      const row = await prisma.readyEmail.findFirst({ where: { generationId: id } });
      return row && row.state === "PENDING" && row.attempts >= 3 ? row : null;
    }, 120_000, "three failed attempts");
    expect(failing.lastError).toMatch(/ECONNREFUSED|connect/i);
    // Backoff: each wait doubles (300 ms, 600 ms, …), so the attempts do not hammer the server.
    expect(failing.nextRunAt.getTime() - Date.now()).toBeLessThanOrEqual(300 * 2 ** failing.attempts);
    sink = await startMailSink({ port: smtpPort });
    const sent = await sentEmail(id);
    expect(sent.attempts).toBeGreaterThanOrEqual(4);
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // room for a wrong second send to show up
    expect(readyMailsTo(email)).toHaveLength(1);
    expect(mailParts(readyMailsTo(email)[0]!.raw).header("subject")).toContain(marker);
  });

  test("unsubscribe: a GET of either link changes nothing, a forged token nothing, the one-click POST unsubscribes without a session", async () => {
    const { browser, email, userId } = await signedIn("unsub");
    const id = await submit(browser, `to unsubscribe from ${uniqueMarker("unsub")}`);
    await sentEmail(id);
    const mail = mailParts(readyMailsTo(email)[0]!.raw);
    expect(mail.header("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    const oneClick = /^<(http[^>]+)>$/.exec(mail.header("list-unsubscribe") ?? "")?.[1];
    expect(oneClick).toMatch(new RegExp(`^${app.baseUrl}/api/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}$`));
    const pageLink = /Stop these emails: (\S+)/.exec(mail.text)?.[1];
    expect(pageLink).toBe(oneClick!.replace("/api/unsubscribe/", "/unsubscribe/"));

    const settings = () => prisma.emailSettings.findUniqueOrThrow({ where: { userId } });
    expect(await settings()).toMatchObject({ readyEmails: true, unsubscribedAt: null });
    // A scanner follows both links, with no cookies.
    for (const url of [oneClick!, pageLink!]) {
      for (const method of ["GET", "HEAD"]) {
        const response = await fetch(url, { method, redirect: "manual" });
        expect([200, 405]).toContain(response.status);
      }
    }
    const page = await (await fetch(pageLink!)).text();
    expect(page).toContain("Stop these emails");
    expect(await settings()).toMatchObject({ readyEmails: true, unsubscribedAt: null });
    // A token the server did not make.
    const forged = oneClick!.replace(/\.[A-Za-z0-9_-]{43}$/, `.${"A".repeat(43)}`);
    expect((await fetch(forged, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } })).status).toBe(404);
    expect(await settings()).toMatchObject({ readyEmails: true, unsubscribedAt: null });

    // The provider's one-click POST: no cookie, no session.
    const response = await fetch(oneClick!, { method: "POST", body: "List-Unsubscribe=One-Click", headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(response.status).toBe(200);
    expect(await settings()).toMatchObject({ readyEmails: false, unsubscribedAt: expect.any(Date) });
    // Their next video, with no choice made, sends nothing.
    const next = await submit(browser, `after unsubscribing ${uniqueMarker("unsub")}`, {});
    await settledRow(next);
    expect((await prisma.generation.findUniqueOrThrow({ where: { id: next } })).emailWhenReady).toBe(false);
    expect(await prisma.readyEmail.count({ where: { generationId: next } })).toBe(0);
    expect(readyMailsTo(email)).toHaveLength(1);
  });
});

const { claimReadyEmail, markReadyEmailSent, retryReadyEmailAt, READY_EMAIL_LEASE_MS } = await import("@/lib/notifications/ready-email-outbox");

describe(`the outbox's claims (${testEngine()})`, () => {
  // Due an hour from now, and claimed "then": the app's own sender (due by the real clock) leaves these rows alone.
  const HOUR = 3_600_000;
  const at = (ms = 0) => new Date(Date.now() + HOUR + ms);

  async function dueRow() {
    const id = `re-${uniqueMarker("claim").replace(/\W/g, "")}`;
    await prisma.generation.create({ data: { id, model: MODEL, prompt: "p", ownerId: "user:nobody", state: "SUCCESS", emailWhenReady: true } });
    return prisma.readyEmail.create({ data: { generationId: id, outcome: "SUCCESS", ownerId: "user:nobody", nextRunAt: at(), giveUpAt: at(HOUR), createdAt: new Date() } });
  }

  test("twenty senders at once (as instances do): one claims the row", async () => {
    const row = await dueRow();
    const claims = await Promise.all(Array.from({ length: 20 }, () => claimReadyEmail({ row, now: at(1_000) })));
    expect(claims.filter((c) => c !== null)).toEqual([1]);
    expect(await prisma.readyEmail.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ state: "SENDING", attempts: 1 });
  });

  test("a sender whose lease lapsed: the next one claims the row, and the first can no longer settle it", async () => {
    const row = await dueRow();
    expect(await claimReadyEmail({ row, now: at(1_000) })).toBe(1);
    // Still leased: nobody else gets it.
    const leased = await prisma.readyEmail.findUniqueOrThrow({ where: { id: row.id } });
    expect(await claimReadyEmail({ row: leased, now: at(2_000) })).toBeNull();
    const later = at(READY_EMAIL_LEASE_MS + 2_000);
    expect(await claimReadyEmail({ row: leased, now: later })).toBe(2);
    expect(await retryReadyEmailAt({ id: row.id, attempts: 1 }, later, "late")).toBe(false);
    expect(await markReadyEmailSent({ id: row.id, attempts: 2 }, later)).toBe(true);
    expect(await prisma.readyEmail.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({ state: "SENT", attempts: 2, lastError: null });
  });
});

