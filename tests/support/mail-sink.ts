// A real SMTP server on loopback that keeps what it receives: the app sends
// sign-in emails to it through SMTP_URL as it would to a provider's server.
import http from "node:http";
import { SMTPServer } from "smtp-server";
import { freePort } from "../../scripts/free-port";

export type ReceivedMail = { to: string[]; raw: string; url: string | null };

export async function startMailSink({ port: chosenPort }: { port?: number } = {}) {
  const received: ReceivedMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    // Loopback only: credentials in the clear are accepted, as a provider's relay would accept them over TLS.
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
      stream.on("end", () => {
        // Quoted-printable soft line breaks ("=\r\n") are undone so the link reads whole.
        const text = raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
        const url = /https?:\/\/\S+\/sign-in\/link\?\S+/.exec(text)?.[0] ?? null;
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw, url });
        waiters.splice(0).forEach((wake) => wake());
        callback();
      });
    },
  });
  const port = chosenPort ?? (await freePort());
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    /** The next email to `to` (one already here counts), as soon as it arrives. */
    async nextTo(to: string, { after = 0, timeoutMs = 30_000 } = {}): Promise<ReceivedMail> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = received.slice(after).find((m) => m.to.includes(to));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no email to ${to} within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 1_000);
        });
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What the sink received, as JSON on GET / (the end-to-end tests read sign-in links, and whole emails, from it across processes). */
export function serveMailbox(sink: Awaited<ReturnType<typeof startMailSink>>, port: number): Promise<http.Server> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify(sink.received.map(({ to, url, raw }) => ({ to, url, raw }))));
  });
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)));
}
