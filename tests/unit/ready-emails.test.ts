// The ready email's pieces that need no server: the unsubscribe token (only
// the secret makes one; anything else names nobody) and the message (first
// line, escaping, the failure's wording, the RFC 8058 headers).
import { describe, expect, test } from "vitest";
import { escapeHtml, promptFirstLine, readyEmailMessage } from "@/lib/notifications/ready-email-message";
import { unsubscribeTokenFor, userIdOfUnsubscribeToken } from "@/lib/notifications/unsubscribe-token";

const SECRET = "a-test-secret-of-enough-length";

describe("the unsubscribe token", () => {
  const token = unsubscribeTokenFor("user_123", SECRET);

  test("names its account under the secret that made it", () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(userIdOfUnsubscribeToken(token, SECRET)).toBe("user_123");
  });

  test.each([
    ["another secret", token, "another-secret-of-enough-length"],
    ["another account's id with this MAC", `${Buffer.from("user_456").toString("base64url")}.${token.split(".")[1]}`, SECRET],
    ["a MAC changed by one character", token.slice(0, -1) + (token.endsWith("A") ? "B" : "A"), SECRET],
    ["no MAC", token.split(".")[0]!, SECRET],
    ["an extra part", `${token}.x`, SECRET],
    ["empty", "", SECRET],
  ])("%s names nobody", (_, given, secret) => {
    expect(userIdOfUnsubscribeToken(given, secret)).toBeNull();
  });
});

describe("the message", () => {
  const facts = {
    to: "a@example.com",
    generationId: "gen1",
    prompt: '\n  <img src=x onerror=alert(1)> & "more"\nline two',
    reason: null,
    still: null,
    baseUrl: "https://app.example",
    unsubscribeToken: "tok.en",
  };

  test.each([
    ["a\nb", "a"],
    ["\n\n  b  \nc", "b"],
    ["tab\there", "tab here"],
    ["x".repeat(200), `${"x".repeat(119)}…`],
    ["", "(no prompt)"],
  ])("the prompt's first line of %j is %j", (prompt, line) => {
    expect(promptFirstLine(prompt)).toBe(line);
  });

  test("a success: links, escaped prompt, one-click headers, no failure wording", () => {
    const mail = readyEmailMessage({ ...facts, outcome: "SUCCESS" });
    expect(mail.subject).toBe('Your video is ready: <img src=x onerror=alert(1)> & "more"');
    expect(mail.html).toContain(escapeHtml('<img src=x onerror=alert(1)> & "more"'));
    expect(mail.html).not.toContain("<img src=x");
    expect(mail.text).toContain("Watch it: https://app.example/generations/gen1");
    expect(mail.text).toContain("Stop these emails: https://app.example/unsubscribe/tok.en");
    expect(mail.headers).toEqual({ "List-Unsubscribe": "<https://app.example/api/unsubscribe/tok.en>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" });
    expect(mail.text).not.toContain("not charged");
  });

  test("a failure: the reason, escaped, and not charged", () => {
    const mail = readyEmailMessage({ ...facts, outcome: "FAILURE", reason: "Refused <b>here</b>" });
    expect(mail.text).toContain("Why: Refused <b>here</b>");
    expect(mail.text).toContain("You were not charged");
    expect(mail.html).toContain("Refused &lt;b&gt;here&lt;/b&gt;");
    expect(mail.html).toContain("You were not charged");
  });
});
