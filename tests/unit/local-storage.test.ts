// The local disk backend's file-to-file calls (an upload stored, a copy read
// back for its still or a frame): whole objects or nothing, never past a bound,
// and no partial file left behind.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { createLocalStorage } from "@/lib/storage/local-storage";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framehook-local-storage-"));
const root = path.join(dir, "media");
const storage = createLocalStorage({ root });
const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7) % 251));
const source = path.join(dir, "source.bin");
fs.writeFileSync(source, bytes);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const leftovers = () => (fs.existsSync(path.join(root, ".partial")) ? fs.readdirSync(path.join(root, ".partial")) : []);

describe("local storage, file to file", () => {
  test("putFile stores the whole file under its key, replacing what was there; getFile writes it back out", async () => {
    await storage.putFile({ key: "uploads/a", file: source, contentType: "video/mp4" });
    expect(fs.readFileSync(path.join(root, "uploads/a")).equals(bytes)).toBe(true);
    fs.writeFileSync(source, bytes.subarray(0, 1000));
    await storage.putFile({ key: "uploads/a", file: source, contentType: "video/mp4" });
    expect(fs.statSync(path.join(root, "uploads/a")).size).toBe(1000);
    fs.writeFileSync(source, bytes);

    const out = path.join(dir, "out-a");
    expect(await storage.getFile({ key: "uploads/a", file: out, maxBytes: 1000 })).toBe(true);
    expect(fs.readFileSync(out).equals(bytes.subarray(0, 1000))).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  test("getFile: false for a missing object; over maxBytes it throws and leaves no file", async () => {
    expect(await storage.getFile({ key: "uploads/missing", file: path.join(dir, "out-missing"), maxBytes: 10 })).toBe(false);
    expect(fs.existsSync(path.join(dir, "out-missing"))).toBe(false);

    await storage.putFile({ key: "generations/g/0", file: source, contentType: "video/mp4" });
    const out = path.join(dir, "out-big");
    await expect(storage.getFile({ key: "generations/g/0", file: out, maxBytes: bytes.length - 1 })).rejects.toThrow(/larger than/);
    expect(fs.existsSync(out)).toBe(false);
  });

  test("putFile of a file that is not there stores nothing and leaves no partial file", async () => {
    await expect(storage.putFile({ key: "uploads/b", file: path.join(dir, "nope"), contentType: "video/mp4" })).rejects.toThrow(/ENOENT/);
    expect(fs.existsSync(path.join(root, "uploads/b"))).toBe(false);
    expect(leftovers()).toEqual([]);
  });
});
