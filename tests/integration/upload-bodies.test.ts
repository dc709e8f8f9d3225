// Upload bodies the app must not read, on the real server (`next start`), over
// raw sockets: a body declared over its field's limit is answered 413 from its
// headers, a chunked one is cut soon past the limit, and with APP_PASSWORD set
// an upload without it is refused before its body is read. What is measured is
// what the client got into its socket before the answer or the end of the
// connection (the server's reads, plus what the kernel's buffers hold).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startApp } from "../support/app";

const PASSWORD = "correct horse battery";
const app = await startApp({ env: { APP_PASSWORD: PASSWORD } });
const { prisma } = await import("@/lib/db");

afterAll(async () => {
  await app.close();
});

const MiB = 1024 * 1024;
const FIELD_LIMIT = 10 * MiB; // Alpha 2.5's frames
const TARGET = "/api/uploads?model=alpha-2.5-first-last-frame-480p&field=first_frame_url";
const gate = `Basic ${Buffer.from(`qa:${PASSWORD}`).toString("base64")}`;

type Sent = { status: number | null; answer: string; bytesSent: number };

/**
 * POSTs `total` bytes (declared, or chunked) on a socket of its own, as fast
 * as the socket takes them, and stops sending once an answer arrives or the
 * server ends the connection. Resolves with the answer and the body bytes the
 * socket took before that.
 */
async function post({ target = TARGET, total, chunked, authorization }: { target?: string; total: number; chunked: boolean; authorization?: string }): Promise<Sent> {
  // A visitor's cookie, as a browser has from the page (this path skips proxy.ts, which issues it).
  const visitor = app.visitor();
  await visitor("/api/generations?limit=1", { headers: { Authorization: gate } });
  const cookie = await visitor.cookieHeader();
  return new Promise((resolve) => {
    const url = new URL(app.baseUrl);
    const socket = net.connect(Number(url.port), url.hostname);
    const headers = [
      `POST ${target} HTTP/1.1`,
      `Host: ${url.host}`,
      "Content-Type: image/png",
      `Cookie: ${cookie}`,
      chunked ? "Transfer-Encoding: chunked" : `Content-Length: ${total}`,
      ...(authorization ? [`Authorization: ${authorization}`] : []),
    ];
    let answer = "";
    let done = false;
    let bytesSent = 0;
    const finish = () => {
      if (done) return;
      done = true;
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({ status: status ? Number(status) : null, answer, bytesSent });
    };
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
      // The whole answer: its headers and a JSON body (Content-Length framed).
      const [head, body = ""] = answer.split("\r\n\r\n");
      const length = Number(/content-length: (\d+)/i.exec(head ?? "")?.[1] ?? NaN);
      if (body.length >= length) finish();
    });
    socket.on("close", finish);
    socket.on("error", finish);
    const chunk = Buffer.alloc(256 * 1024, 7);
    const pump = () => {
      if (done) return;
      if (bytesSent >= total) return void (chunked && socket.write("0\r\n\r\n"));
      const size = Math.min(chunk.length, total - bytesSent);
      const data = chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), chunk.subarray(0, size), Buffer.from("\r\n")]) : chunk.subarray(0, size);
      // Counted once the socket took it; the next one after an answer had its chance to arrive.
      socket.write(data, (error) => {
        if (error) return finish();
        bytesSent += size;
        setImmediate(pump);
      });
    };
    socket.write(`${headers.join("\r\n")}\r\n\r\n`, () => setImmediate(pump));
  });
}

/** The answer's JSON (its body may come in chunked framing). */
const errorOf = (sent: Sent) => (JSON.parse(sent.answer.slice(sent.answer.indexOf("{"), sent.answer.lastIndexOf("}") + 1)) as { error?: { code: string; message: string; fields?: Record<string, string[]> } }).error;

describe("a body over its field's limit", () => {
  test("declared: 60 MiB to a 10 MiB field is answered 413, with the field's words, before the body is read", async () => {
    const sent = await post({ total: 60 * MiB, chunked: false, authorization: gate });
    console.log(`[upload-bodies] declared 60 MiB: ${sent.status} after ${sent.bytesSent} body bytes sent`);
    expect(sent.status).toBe(413);
    expect(errorOf(sent)).toMatchObject({ code: "payload_too_large", fields: { first_frame_url: [expect.stringMatching(/^This file is 60 MB; .* takes up to 10 MB\.$/)] } });
    // The answer came from the headers: the client was still at its first megabytes (what the socket buffers took).
    expect(sent.bytesSent).toBeLessThan(FIELD_LIMIT);
  }, 120_000);

  test("chunked: 60 MiB is cut within 1 MiB past the limit (plus what the socket buffers hold)", async () => {
    const sent = await post({ total: 60 * MiB, chunked: true, authorization: gate });
    console.log(`[upload-bodies] chunked 60 MiB: ${sent.status ?? "connection ended"} after ${sent.bytesSent} body bytes sent (limit ${FIELD_LIMIT})`);
    // The answer, when it reaches the client before the end of the connection does.
    if (sent.status !== null) expect(errorOf(sent)).toMatchObject({ code: "payload_too_large", message: expect.stringMatching(/takes up to 10 MB/) });
    // Loopback socket buffers take a few MiB that the server never read.
    expect(sent.bytesSent).toBeLessThan(FIELD_LIMIT + MiB + 8 * MiB);
    expect(await prisma.upload.count()).toBe(0);
  }, 120_000);
});

describe("a client that sends its whole body before it reads (Node's http client, curl, browsers)", () => {
  const cookie = async () => {
    const visitor = app.visitor();
    await visitor("/api/generations?limit=1", { headers: { Authorization: gate } });
    return visitor.cookieHeader();
  };

  test("Node's http client: 60 MiB declared to a 10 MiB field reads the 413, with no reset on the way", async () => {
    const total = 60 * MiB;
    const headers = { "Content-Type": "image/png", "Content-Length": String(total), Authorization: gate, Cookie: await cookie() };
    const errors: string[] = [];
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = http.request(new URL(TARGET, app.baseUrl), { method: "POST", headers }, (response) => {
        let body = "";
        response.on("data", (chunk: Buffer) => (body += chunk.toString()));
        response.on("end", () => request.once("close", () => resolve({ status: response.statusCode!, body })));
      });
      request.on("error", (error) => {
        errors.push(error.message);
        reject(error);
      });
      const chunk = Buffer.alloc(MiB, 7);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once("drain", pump);
        }
        request.end();
      };
      pump();
    });
    expect(errors).toEqual([]);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "payload_too_large", fields: { first_frame_url: [expect.stringMatching(/takes up to 10 MB/)] } } });
    expect(await prisma.upload.count()).toBe(0);
  }, 120_000);

  test.skipIf(spawnSync("curl", ["--version"]).status !== 0)("curl --data-binary: 60 MiB to a 10 MiB field reads the 413", async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "framehook-body-")), "big.png");
    fs.writeFileSync(file, Buffer.alloc(60 * MiB, 7));
    try {
      const result = spawnSync(
        "curl",
        ["-sS", "-o", "-", "-w", "\n%{http_code}", "-H", "Content-Type: image/png", "-H", `Authorization: ${gate}`, "-H", `Cookie: ${await cookie()}`, "--data-binary", `@${file}`, new URL(TARGET, app.baseUrl).href],
        { encoding: "utf8", timeout: 90_000 },
      );
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
      const [body, status] = result.stdout.split("\n");
      expect(status).toBe("413");
      expect(JSON.parse(body!)).toMatchObject({ error: { code: "payload_too_large" } });
    } finally {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  }, 120_000);
});

describe("the access gate", () => {
  test("an upload without the password is refused 401 before its body is read, even one under the limit", async () => {
    // A 60 MiB clip where up to 100 MB are taken.
    const sent = await post({ target: "/api/uploads?model=delta-h3/reference-to-video&field=reference_video_urls", total: 60 * MiB, chunked: false });
    console.log(`[upload-bodies] no password, 60 MiB declared: ${sent.status} after ${sent.bytesSent} body bytes sent`);
    expect(sent.status).toBe(401);
    expect(sent.answer).toMatch(/www-authenticate: Basic/i);
    expect(sent.bytesSent).toBeLessThan(FIELD_LIMIT);
    expect(await prisma.upload.count()).toBe(0);
  }, 120_000);
});
