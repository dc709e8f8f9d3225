// Emailed sign-in links through the real server, as mail systems and
// attackers use them: a scanner opening the link (GET, HEAD) leaves it
// usable; only the button on the link's page signs in; the browser that asked
// for the link may keep its guest's work, and a browser that opens a link
// someone else asked for (login CSRF: Eve mails the victim her own link) is
// signed in but moves nothing, and is told so.
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";
import { askForLink, browserFor, confirmLink, signInByEmail } from "../support/accounts";
import { startMailSink } from "../support/mail-sink";
import { callAction } from "../support/server-actions";
import { uniqueMarker } from "../support/simulator-control";

const sink = await startMailSink();
const app = await startApp({ env: { SMTP_URL: sink.url, SUBMIT_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
  await sink.close();
});

const browser = () => browserFor(app.baseUrl);
const email = (name: string) => `${name}-${uniqueMarker("l").replace(/\W/g, "").toLowerCase()}@example.com`;
const text = async (response: Response) => (await response.text()).replaceAll("<!-- -->", "");
const linkPath = (link: string) => new URL(link).pathname + new URL(link).search;

async function submit(b: ReturnType<typeof browser>, prompt: string) {
  const response = await b("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } } });
  expect(response.status).toBe(201);
  return ((await response.json()) as { id: string }).id;
}
const unusedLinks = () => prisma.verification.count({ where: { expiresAt: { gt: new Date() } } });

describe("a sign-in link", { timeout: 120_000 }, () => {
  test("opened by a mail scanner (GET, HEAD, no cookies) stays usable; the browser that asked signs in with the button and keeps its work", async () => {
    const b = browser();
    await b("/");
    const guestId = b.guestId()!;
    const id = await submit(b, "made before the link");
    const address = email("scanned");
    const link = await askForLink({ sink, browser: b, email: address });
    expect(new URL(link).pathname).toBe("/sign-in/link");
    const waiting = await unusedLinks();

    for (const method of ["HEAD", "GET", "GET"]) {
      const scanner = browser();
      const seen = await scanner(linkPath(link), { method });
      expect(seen.status).toBe(200);
      expect(scanner.jar.has("better-auth.session_token")).toBe(false);
      if (method === "GET") expect(await text(seen)).toContain(`Sign in as ${address}`);
    }
    // Better Auth's own GET endpoint, which would sign in whoever opens it, is off and uses nothing.
    const token = new URL(link).searchParams.get("token")!;
    expect((await browser()(`/api/auth/magic-link/verify?token=${token}&callbackURL=/welcome`)).status).toBe(404);
    expect(await unusedLinks()).toBe(waiting);
    expect(await prisma.user.count({ where: { email: address } })).toBe(0);

    // The asking browser's page says nothing about another browser.
    expect(await text(await b(linkPath(link)))).not.toContain("asked for in another browser");
    await confirmLink({ browser: b, link });
    expect(b.jar.has("better-auth.session_token")).toBe(true);
    expect(await text(await b("/welcome"))).toContain("Keep the 1 video made in this browser?");
    await callAction(b, "keepGuestWork", [], "/welcome");
    const userId = (await prisma.user.findUniqueOrThrow({ where: { email: address } })).id;
    expect((await prisma.generation.findUniqueOrThrow({ where: { id } })).ownerId).toBe(`user:${userId}`);
    expect(await prisma.guestClaim.findUnique({ where: { guestId } })).toMatchObject({ userId, generations: 1 });

    // Used once: a second press, in any browser, signs nobody in.
    const late = browser();
    const again = await confirmLink({ browser: late, link }).catch(() => null);
    expect(again?.text ?? "").toContain("expired or was already used");
    expect(late.jar.has("better-auth.session_token")).toBe(false);
  });

  test("Eve's own link opened in a victim's browser signs the victim in as Eve and moves none of the victim's work", async () => {
    const eve = browser();
    await eve("/");
    const eveAddress = email("eve");
    const link = await askForLink({ sink, browser: eve, email: eveAddress });

    const victim = browser();
    await victim("/");
    const victimGuest = victim.guestId()!;
    // The victim once asked for a link of their own in this browser: their asker cookie is not Eve's.
    await askForLink({ sink, browser: victim, email: email("victim") });
    const made = await submit(victim, "the victim's video");

    const page = await text(await victim(linkPath(link)));
    expect(page).toContain(`Sign in as ${eveAddress}`);
    expect(page).toContain("This link was asked for in another browser");
    await confirmLink({ browser: victim, link });
    expect(victim.jar.has("better-auth.session_token")).toBe(true);
    const eveId = (await prisma.user.findUniqueOrThrow({ where: { email: eveAddress } })).id;

    // Signed in as Eve, but no claim is offered, and the action refuses.
    const welcome = await victim("/welcome");
    expect(welcome.status).toBe(200);
    const body = await text(welcome);
    expect(body).toContain("Nothing from this browser was moved");
    expect(body).not.toContain("Keep them");
    const refused = await callAction(victim, "keepGuestWork", [], "/welcome");
    expect(refused.text).toContain("asked for in another browser");
    expect((await prisma.generation.findUniqueOrThrow({ where: { id: made } })).ownerId).toBe(victimGuest);
    expect(await prisma.guestClaim.count({ where: { guestId: victimGuest } })).toBe(0);
    expect(await prisma.generation.count({ where: { ownerId: `user:${eveId}` } })).toBe(0);

    // The victim can still keep their work: a link of their own, asked from this browser, earns the prompt.
    const own = email("victim-own");
    const ownId = await signInByEmail({ app, sink, browser: victim, email: own });
    expect(await text(await victim("/welcome"))).toContain("Keep the 1 video made in this browser?");
    await callAction(victim, "keepGuestWork", [], "/welcome");
    expect((await prisma.generation.findUniqueOrThrow({ where: { id: made } })).ownerId).toBe(`user:${ownId}`);
  });

  test("a forged claim cookie, or one from another session, earns no claim", async () => {
    const eve = browser();
    await eve("/");
    await signInByEmail({ app, sink, browser: eve, email: email("eve-proof") });
    const eveProof = eve.jar.get("framehook_claim")!;
    expect(eveProof).toBeTruthy();

    const victim = browser();
    await victim("/");
    const made = await submit(victim, "kept from a forged proof");
    const link = await askForLink({ sink, browser: eve, email: email("eve-second") });
    await confirmLink({ browser: victim, link });
    for (const proof of [eveProof, "forged", ""]) {
      victim.jar.set("framehook_claim", proof);
      expect(await text(await victim("/welcome"))).toContain("Nothing from this browser was moved");
      expect((await callAction(victim, "keepGuestWork", [], "/welcome")).text).toContain("asked for in another browser");
    }
    expect((await prisma.generation.findUniqueOrThrow({ where: { id: made } })).ownerId).toBe(victim.guestId());
  });
});
