// What the browser complained about during one flow: console errors, uncaught
// page errors and 4xx/5xx responses. The `browserErrors` fixture (fixtures.ts)
// fails every flow that leaves one of these unexplained; a flow that provokes
// one on purpose says so with `allow`, next to the step that provokes it.
import type { BrowserContext, ConsoleMessage, Response } from "@playwright/test";

export type BrowserError =
  | { kind: "console"; text: string; url: string }
  | { kind: "pageerror"; text: string; url: string }
  | { kind: "response"; status: number; url: string; method: string };

/** One allowed complaint. Every given field must match; `reason` is for the reader. */
export type AllowedError = {
  kind?: BrowserError["kind"];
  /** The failing resource (responses, and the console's "Failed to load resource" line about it). */
  url?: RegExp;
  status?: number;
  /** The console or page error's message. */
  text?: RegExp;
  reason: string;
};

export class BrowserErrors {
  readonly seen: BrowserError[] = [];
  private readonly allowed: AllowedError[] = [];

  /** Listens on the whole context, so pages a flow opens (popups, new tabs) count too. */
  watch(context: BrowserContext) {
    context.on("console", (message) => this.onConsole(message));
    context.on("weberror", (error) => {
      this.seen.push({ kind: "pageerror", text: String(error.error()), url: error.page()?.url() ?? "" });
    });
    context.on("response", (response) => this.onResponse(response));
  }

  /** Explains a complaint this flow provokes on purpose. */
  allow(entry: AllowedError) {
    this.allowed.push(entry);
  }

  /** What nobody explained, one line each, for the failure message. */
  unexpected(): string[] {
    return this.seen.filter((error) => !this.allowed.some((entry) => matches(entry, error))).map(describe);
  }

  private onConsole(message: ConsoleMessage) {
    if (message.type() !== "error") return;
    this.seen.push({ kind: "console", text: message.text(), url: message.location().url });
  }

  private onResponse(response: Response) {
    if (response.status() < 400) return;
    this.seen.push({ kind: "response", status: response.status(), url: response.url(), method: response.request().method() });
  }
}

function matches(entry: AllowedError, error: BrowserError): boolean {
  if (entry.kind && entry.kind !== error.kind) return false;
  if (entry.url && !entry.url.test(error.url)) return false;
  if (entry.text && (error.kind === "response" || !entry.text.test(error.text))) return false;
  if (entry.status !== undefined) {
    // Chromium reports a failed load twice: the response, and a console line naming its status.
    const status = error.kind === "response" ? error.status : Number(/status of (\d{3})/.exec(error.text)?.[1]);
    if (status !== entry.status) return false;
  }
  return true;
}

function describe(error: BrowserError): string {
  switch (error.kind) {
    case "response":
      return `${error.status} ${error.method} ${error.url}`;
    case "console":
      return `console error: ${error.text}${error.url ? ` (${error.url})` : ""}`;
    case "pageerror":
      return `uncaught: ${error.text}${error.url ? ` (on ${error.url})` : ""}`;
  }
}
