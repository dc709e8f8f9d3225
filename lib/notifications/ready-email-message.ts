// What a ready email says: the prompt's first line, the still (inline, when
// the stored copy has one), a link to the video's page, and for a failure the
// reason and that nothing was charged; a text and an HTML part in the kit's
// brand, every piece of user text escaped; and the RFC 8058 one-click
// unsubscribe headers, whose POST-only URL a mail scanner cannot trigger by
// following it.
import { brand } from "@/lib/brand";
import type { OutgoingMail } from "@/lib/auth/mail";

export type ReadyEmailFacts = {
  to: string;
  generationId: string;
  outcome: "SUCCESS" | "FAILURE";
  prompt: string;
  /** The failure's reason as the gateway gave it, if any. */
  reason: string | null;
  /** A small JPEG of the video, when there is one. */
  still: Buffer | null;
  baseUrl: string;
  unsubscribeToken: string;
};

const FIRST_LINE_MAX = 120;
const REASON_MAX = 300;
const STILL_CID = "still@framehook";

/** The prompt's first non-empty line, without control characters, shortened. */
export function promptFirstLine(prompt: string): string {
  const line = prompt.split(/\r\n|\r|\n/).map((l) => l.replace(/[\u0000-\u001f\u007f]/g, " ").trim()).find(Boolean) ?? "";
  return line.length > FIRST_LINE_MAX ? `${line.slice(0, FIRST_LINE_MAX - 1)}…` : line || "(no prompt)";
}

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

export function readyEmailMessage(facts: ReadyEmailFacts): OutgoingMail {
  const line = promptFirstLine(facts.prompt);
  const videoUrl = new URL(`/generations/${encodeURIComponent(facts.generationId)}`, facts.baseUrl).toString();
  const unsubscribePage = new URL(`/unsubscribe/${facts.unsubscribeToken}`, facts.baseUrl).toString();
  const oneClick = new URL(`/api/unsubscribe/${facts.unsubscribeToken}`, facts.baseUrl).toString();
  const ready = facts.outcome === "SUCCESS";
  const reason = facts.reason ? promptFirstLine(facts.reason).slice(0, REASON_MAX) : "The video service did not say why.";
  const subject = ready ? `Your video is ready: ${line}` : `Your video could not be made: ${line}`;
  const lead = ready ? "Your video is ready." : "Your video could not be made.";
  const notCharged = "You were not charged: the credits it held are back in your balance.";

  const text = [
    lead,
    "",
    `“${line}”`,
    "",
    ...(ready ? [`Watch it: ${videoUrl}`] : [`Why: ${reason}`, notCharged, "", `See it: ${videoUrl}`]),
    "",
    `You asked ${brand.name} to email you when your videos are ready. Stop these emails: ${unsubscribePage}`,
  ].join("\n");

  const color = brand.colors.brand[600];
  const html = `<!doctype html>
<html><body style="margin:0;padding:24px;background:${brand.colors.pageLight};font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#18181b">
<div style="max-width:480px;margin:0 auto;background:#ffffff;border-radius:16px;padding:24px;border:1px solid #e4e4e7">
<p style="margin:0 0 16px;font-weight:600;color:${color}">${escapeHtml(brand.name)}</p>
<h1 style="margin:0 0 12px;font-size:20px">${escapeHtml(lead)}</h1>
<p style="margin:0 0 16px;font-size:15px">“${escapeHtml(line)}”</p>
${facts.still && ready ? `<p style="margin:0 0 16px"><a href="${escapeHtml(videoUrl)}"><img src="cid:${STILL_CID}" alt="A frame of the video" width="320" style="display:block;max-width:100%;height:auto;border-radius:8px"></a></p>\n` : ""}${
    ready
      ? ""
      : `<p style="margin:0 0 8px;font-size:14px"><strong>Why:</strong> ${escapeHtml(reason)}</p>\n<p style="margin:0 0 16px;font-size:14px">${escapeHtml(notCharged)}</p>\n`
  }<p style="margin:0 0 24px"><a href="${escapeHtml(videoUrl)}" style="display:inline-block;background:${color};color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:8px;font-weight:600">${ready ? "Watch the video" : "See the details"}</a></p>
<p style="margin:0;font-size:12px;color:#71717a">You asked ${escapeHtml(brand.name)} to email you when your videos are ready. <a href="${escapeHtml(unsubscribePage)}" style="color:#71717a">Stop these emails</a>.</p>
</div></body></html>`;

  return {
    to: facts.to,
    subject,
    text,
    html,
    headers: {
      // RFC 8058: a mail provider's "unsubscribe" button POSTs "List-Unsubscribe=One-Click" here; a GET changes nothing.
      "List-Unsubscribe": `<${oneClick}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
    },
    attachments: facts.still && ready ? [{ filename: "still.jpg", content: facts.still, contentType: "image/jpeg", cid: STILL_CID }] : [],
    link: { url: videoUrl, label: ready ? "Open the video" : "Open the video's page" },
  };
}
