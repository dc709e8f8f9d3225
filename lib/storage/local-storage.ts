// Media on the local filesystem (the default: zero configuration, under
// data/media/). Writes go to a temporary file first and are renamed into
// place once complete and flushed, so a crash or a cut download never leaves
// a partial file under a key.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { overLimit, type MediaStorage } from "./storage";

const PARTIAL_DIR = ".partial";
/** A partial file older than this belongs to a copy that died with its process. */
const PARTIAL_MAX_AGE_MS = 24 * 3600_000;

export function createLocalStorage({ root }: { root: string }): MediaStorage {
  const partials = path.join(root, PARTIAL_DIR);
  const fileOf = (key: string) => {
    // Keys are made by the app (lib/copies/copy-jobs.ts); this only guards the invariant.
    if (!/^[a-z0-9][a-z0-9/_-]*$/i.test(key) || key.includes("..")) throw new Error(`Invalid media key: ${key}`);
    return path.join(root, key);
  };

  return {
    kind: "local",

    async put({ key, body }) {
      await writeInPlace(fileOf(key), (partial) => pipeline(body, fs.createWriteStream(partial, { flags: "wx" })));
    },

    async putFile({ key, file }) {
      // The kernel copies it (copy_file_range, or a reflink): no byte passes through the process.
      await writeInPlace(fileOf(key), (partial) => fs.promises.copyFile(file, partial, fs.constants.COPYFILE_EXCL));
    },

    async getFile({ key, file, maxBytes }) {
      const stored = fileOf(key);
      try {
        await fs.promises.copyFile(stored, file, fs.constants.COPYFILE_EXCL);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT" && !fs.existsSync(stored)) return false;
        throw error;
      }
      // Checked on the copy itself: the object may have been replaced meanwhile.
      if ((await fs.promises.stat(file)).size > maxBytes) {
        await fs.promises.rm(file, { force: true });
        throw overLimit(maxBytes);
      }
      return true;
    },

    async get({ key, range }) {
      const file = fileOf(key);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (!stat?.isFile()) return null;
      return { body: fs.createReadStream(file, range ?? {}), size: stat.size };
    },

    async url() {
      return null;
    },

    async delete({ key }) {
      await fs.promises.rm(fileOf(key), { force: true });
    },
  };

  /** Writes a partial file with `write`, flushes it, then renames it to `file`: never half a file under a key. */
  async function writeInPlace(file: string, write: (partial: string) => Promise<unknown>): Promise<void> {
    await fs.promises.mkdir(partials, { recursive: true });
    await fs.promises.mkdir(path.dirname(file), { recursive: true });
    void sweepPartials(partials);
    const partial = path.join(partials, `${randomBytes(8).toString("hex")}.part`);
    try {
      await write(partial);
      const handle = await fs.promises.open(partial, "r+");
      await handle.sync().finally(() => handle.close());
      await fs.promises.rename(partial, file);
    } catch (error) {
      await fs.promises.rm(partial, { force: true });
      throw error;
    }
  }
}

async function sweepPartials(dir: string): Promise<void> {
  try {
    const cutoff = Date.now() - PARTIAL_MAX_AGE_MS;
    for (const name of await fs.promises.readdir(dir)) {
      const file = path.join(dir, name);
      const stat = await fs.promises.stat(file).catch(() => null);
      if (stat && stat.mtimeMs < cutoff) await fs.promises.rm(file, { force: true });
    }
  } catch {
    // Housekeeping only: a failure here costs disk space, never a copy.
  }
}
