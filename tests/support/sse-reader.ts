// Reads a Server-Sent Events stream over fetch, as a browser's EventSource
// would parse it, and keeps every message for tests to wait on.
export type SseMessage = { event: string; data: string; id?: string };

export class SseReader {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  ended = false;
  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {}

  static async open(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
    const controller = new AbortController();
    const response = await fetch(url, { headers: { Accept: "text/event-stream", ...headers }, signal: controller.signal });
    const reader = new SseReader(response, controller);
    void reader.pump();
    return reader;
  }

  close() {
    this.controller.abort();
  }

  /** The `change` events' payloads. */
  changes(): { id: string; state: string; updatedAt: string; [key: string]: unknown }[] {
    return this.messages.filter((m) => m.event === "change").map((m) => JSON.parse(m.data));
  }

  private async pump() {
    let buffer = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          this.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Aborted by close().
    }
    this.ended = true;
  }

  private parse(block: string) {
    const message: SseMessage = { event: "message", data: "" };
    let hasField = false;
    for (const line of block.split("\n")) {
      if (line.startsWith(":")) this.comments.push(line.slice(1).trim());
      const [field, ...rest] = line.split(":");
      const value = rest.join(":").replace(/^ /, "");
      if (field === "event") message.event = value;
      else if (field === "data") message.data += value;
      else if (field === "id") message.id = value;
      else continue;
      hasField = true;
    }
    if (hasField && message.data !== "") this.messages.push(message);
  }
}
