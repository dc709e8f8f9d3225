// Reads what a mail client shows of a raw message (as the SMTP sink received
// it): its headers (unfolded, encoded words decoded), and its text and HTML
// parts (quoted-printable or base64 undone), without a MIME library.
/** `attachments`: each non-text part's Content-Type; `inline`: the HTML with its cid: images as data: URLs, as a client shows it. */
export type MailParts = { header(name: string): string | null; text: string; html: string; attachments: string[]; inline: string };

const decodeQuotedPrintable = (body: string) =>
  Buffer.from(
    body.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    "latin1",
  ).toString("utf8");

function decodeBody(body: string, encoding: string | null): string {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") return decodeQuotedPrintable(body);
  return body;
}

/** RFC 2047 encoded words (=?UTF-8?Q?…?= and =?UTF-8?B?…?=), as in a Subject. */
const decodeWords = (value: string) =>
  value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, text: string) =>
      kind.toUpperCase() === "B" ? Buffer.from(text, "base64").toString("utf8") : decodeQuotedPrintable(text.replace(/_/g, " ")),
    );

function splitHead(chunk: string): { headers: Map<string, string>; body: string } {
  const at = chunk.search(/\r?\n\r?\n/);
  const head = at < 0 ? chunk : chunk.slice(0, at);
  const body = at < 0 ? "" : chunk.slice(at).replace(/^\r?\n\r?\n/, "");
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

export function mailParts(raw: string): MailParts {
  const top = splitHead(raw);
  const leaves: { headers: Map<string, string>; body: string }[] = [];
  const visit = (part: { headers: Map<string, string>; body: string }) => {
    const type = part.headers.get("content-type") ?? "text/plain";
    const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
    if (!type.toLowerCase().startsWith("multipart/") || !boundary) return void leaves.push(part);
    for (const chunk of part.body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith("--")) break;
      visit(splitHead(chunk.replace(/^\r?\n/, "")));
    }
  };
  visit(top);
  const bodyOf = (kind: string) => {
    const leaf = leaves.find((l) => (l.headers.get("content-type") ?? "").toLowerCase().startsWith(kind));
    return leaf ? decodeBody(leaf.body, leaf.headers.get("content-transfer-encoding")?.toLowerCase() ?? null) : "";
  };
  const html = bodyOf("text/html");
  let inline = html;
  for (const leaf of leaves) {
    const cid = /^<(.+)>$/.exec(leaf.headers.get("content-id") ?? "")?.[1];
    const type = (leaf.headers.get("content-type") ?? "").split(";")[0];
    if (cid && leaf.headers.get("content-transfer-encoding")?.toLowerCase() === "base64") inline = inline.replaceAll(`cid:${cid}`, `data:${type};base64,${leaf.body.replace(/\s+/g, "")}`);
  }
  return {
    inline,
    header: (name) => {
      const value = top.headers.get(name.toLowerCase());
      return value === undefined ? null : decodeWords(value);
    },
    text: bodyOf("text/plain"),
    html,
    attachments: leaves.map((l) => l.headers.get("content-type") ?? "").filter((t) => !t.toLowerCase().startsWith("text/")),
  };
}
