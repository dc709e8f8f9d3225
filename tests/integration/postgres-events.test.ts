// PostgreSQL LISTEN/NOTIFY carries a generation event from one app instance
// (a process of its own) to another, both ways, and survives a dropped
// listening connection.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { createPostgresBus } from "@/lib/events/postgres-bus";
import type { BusEvent, GenerationEvent } from "@/lib/events/types";
import { findPostgresBin, startLocalPostgres } from "../../scripts/local-postgres";
import { waitFor } from "../support/wait";

async function startPostgres() {
  if (!findPostgresBin()) return undefined;
  const dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "framehook-events-pg-")), "data");
  const server = await startLocalPostgres({ dataDir, port: await freePort(), throwaway: true });
  return {
    url: server.url("postgres"),
    stop: async () => {
      await server.stop();
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
    },
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const postgres = await startPostgres();
if (!postgres) console.warn("[test] no PostgreSQL binaries: the LISTEN/NOTIFY tests are skipped");

const heard: { type: string; event?: GenerationEvent & { kind?: string } }[] = [];
let other: ChildProcess | undefined;
const here = postgres ? createPostgresBus({ url: postgres.url }) : undefined;
const received: BusEvent[] = [];
let gaps = 0;
here?.subscribe({ onEvent: (event) => received.push(event), onGap: () => gaps++ });

afterAll(async () => {
  other?.stdin?.end();
  other?.kill("SIGTERM");
  await here?.close();
  await postgres?.stop();
});

const event = (id: string): GenerationEvent => ({ id, state: "SUCCESS", updatedAt: new Date().toISOString(), ownerId: "owner-1", at: Date.now() });

async function startOtherInstance(url: string) {
  other = spawn(process.execPath, ["--import", "tsx", "tests/support/events-instance.ts", url], { stdio: ["pipe", "pipe", "inherit"] });
  readline.createInterface({ input: other.stdout! }).on("line", (line) => heard.push(JSON.parse(line)));
}

const listeners = async (url: string) => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'framehook-events'");
  await client.end();
  return rows[0].n as number;
};

describe.skipIf(!postgres)("PostgreSQL LISTEN/NOTIFY", () => {
  test("an event published on one instance reaches the other, and back", async () => {
    await startOtherInstance(postgres!.url);
    await waitFor(async () => (await listeners(postgres!.url)) === 2, 20_000);

    await here!.publish(event("gen-from-a"));
    const there = await waitFor(() => heard.find((h) => h.event?.id === "gen-from-a"), 10_000);
    expect(there.event).toMatchObject({ id: "gen-from-a", state: "SUCCESS", ownerId: "owner-1" });

    other!.stdin!.write(`${JSON.stringify(event("gen-from-b"))}\n`);
    await waitFor(() => received.some((e) => "id" in e && e.id === "gen-from-b"), 10_000);
  });

  test("an owner's credits change crosses instances as itself: whose, and when, nothing more", async () => {
    const at = Date.now();
    await here!.publish({ kind: "credits", ownerId: "owner-9", at });
    const there = await waitFor(() => heard.find((h) => h.event?.kind === "credits"), 10_000);
    expect(there.event).toEqual({ kind: "credits", ownerId: "owner-9", at });
  });

  test("a burst of 300 publishes at once all arrive, in order (sent in batches on the one connection)", async () => {
    const ids = Array.from({ length: 300 }, (_, i) => `burst-${i}`);
    await Promise.all(ids.map((id) => here!.publish(event(id))));
    await waitFor(() => heard.filter((h) => h.event?.id?.startsWith("burst-")).length === ids.length, 10_000);
    expect(heard.filter((h) => h.event?.id?.startsWith("burst-")).map((h) => h.event!.id)).toEqual(ids);
  });

  test("a dropped listening connection reconnects, reports the gap, and hears again", async () => {
    const admin = new pg.Client({ connectionString: postgres!.url });
    await admin.connect();
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'framehook-events'");
    await admin.end();

    await waitFor(() => gaps > 0 && heard.some((h) => h.type === "gap"), 20_000);
    await here!.publish(event("gen-after-drop"));
    await waitFor(() => heard.some((h) => h.event?.id === "gen-after-drop"), 10_000);
  });
});
