// An email when a video is ready, as a person uses it: signed in, they tick
// "Email me when it's ready" beside Generate, wait for Ready, open the email
// (its HTML part, from the real SMTP server on loopback) and follow its link
// to the video's page; the account page's setting; the email's unsubscribe
// page, which only its button acts on. The form and the account page are
// looked at at 390 px and on a desktop.
import type { Page } from "@playwright/test";
import { E2E_MAILBOX_URL } from "../../playwright.config";
import { mailParts } from "../support/mail-parts";
import { expect, test } from "./fixtures";

type Received = { to: string[]; url: string | null; raw: string };
const inbox = async () => (await (await fetch(E2E_MAILBOX_URL)).json()) as Received[];

async function signIn(page: Page, email: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
  let link: string | null = null;
  await expect.poll(async () => (link = (await inbox()).filter((m) => m.to.includes(email)).at(-1)?.url ?? null)).toBeTruthy();
  await page.goto(link!);
  await page.getByRole("button", { name: `Sign in as ${email}` }).click();
  await expect(page).not.toHaveURL(/\/sign-in\/link/);
}

test("tick the box, wait for Ready, open the email and follow its link to the video", async ({ gallery, simulator, page, context }, testInfo) => {
  const prompt = simulator.prompt("a kite over the dunes");
  const email = `kite-${simulator.marker.replace(/\W/g, "").toLowerCase()}@example.com`;

  await gallery.goto();
  // A guest is offered sign-in for it, not the box.
  await expect(page.getByRole("checkbox", { name: "Email me when it’s ready" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "go to sign-in" })).toBeVisible();
  await page.getByRole("form", { name: "New video" }).screenshot({ path: testInfo.outputPath("form-guest.png") });

  await signIn(page, email);
  await gallery.goto();
  const box = page.getByRole("checkbox", { name: "Email me when it’s ready" });
  await expect(box).not.toBeChecked();
  await box.check();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("form", { name: "New video" }).screenshot({ path: testInfo.outputPath("form-390.png") });
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.getByRole("form", { name: "New video" }).screenshot({ path: testInfo.outputPath("form-desktop.png") });
  await gallery.submit(prompt);
  await expect(gallery.badge(prompt)).toHaveText("Ready");
  // Remembered: ticked after the form cleared, and on the next visit.
  await expect(box).toBeChecked();
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "Email me when it’s ready" })).toBeChecked();

  let raw: string | undefined;
  await expect
    .poll(async () => (raw = (await inbox()).find((m) => m.to.includes(email) && mailParts(m.raw).header("subject")?.startsWith("Your video is ready"))?.raw), {
      message: "the ready email arrives",
      timeout: 120_000,
    })
    .toBeTruthy();
  const mail = mailParts(raw!);
  expect(mail.header("subject")).toBe(`Your video is ready: ${prompt}`);

  // The account page has the setting for every video, on as the box left it.
  for (const [name, size] of [["account-390", { width: 390, height: 844 }], ["account-desktop", { width: 1280, height: 900 }]] as const) {
    await page.setViewportSize(size);
    await page.goto("/account");
    await expect(page.getByRole("checkbox", { name: /Email me when each video is ready/ })).toBeChecked();
    await page.screenshot({ path: testInfo.outputPath(`${name}.png`), fullPage: true });
  }
  await page.getByRole("checkbox", { name: /Email me when each video is ready/ }).uncheck();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved: no emails when videos are ready." })).toBeVisible();
  await page.goto("/");
  await expect(page.getByRole("checkbox", { name: "Email me when it’s ready" })).not.toBeChecked();
  await page.goto("/account");
  await page.getByRole("checkbox", { name: /Email me when each video is ready/ }).check();
  await page.getByRole("button", { name: "Save" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Saved: you will get an email when each video is ready." })).toBeVisible();

  // The email as a mail client shows it: its HTML, and its button to the video.
  const reader = await context.newPage();
  await reader.setContent(mail.inline);
  // The still travels inside the email (a cid: part): it decodes.
  await expect.poll(() => reader.getByRole("img", { name: "A frame of the video" }).evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeGreaterThan(0);
  await expect(reader.getByRole("heading", { name: "Your video is ready." })).toBeVisible();
  await reader.screenshot({ path: testInfo.outputPath("email.png"), fullPage: true });
  await reader.getByRole("link", { name: "Watch the video" }).click();
  await expect(reader).toHaveURL(/\/generations\/[^/]+$/);
  await expect(reader.getByText(prompt).first()).toBeVisible();

  // Its "Stop these emails" link opens a page with a button; only the button unsubscribes.
  await reader.setContent(mail.inline);
  await reader.getByRole("link", { name: "Stop these emails" }).click();
  await expect(reader.getByRole("heading", { name: "Stop the emails when a video is ready?" })).toBeVisible();
  await reader.screenshot({ path: testInfo.outputPath("unsubscribe.png"), fullPage: true });
  await page.goto("/");
  await expect(page.getByRole("checkbox", { name: "Email me when it’s ready" })).toBeChecked();
  await reader.getByRole("button", { name: "Stop these emails" }).click();
  await expect(reader.getByRole("heading", { name: "You will get no more of these emails" })).toBeVisible();
  await reader.screenshot({ path: testInfo.outputPath("unsubscribed.png"), fullPage: true });
  await page.reload();
  await expect(page.getByRole("checkbox", { name: "Email me when it’s ready" })).not.toBeChecked();
});
