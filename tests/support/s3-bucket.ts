// An S3-compatible bucket for the S3 tests: s3rver in this process, on
// loopback, in a temporary directory; and the app's env that points at it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";

export type S3Bucket = {
  /** The bucket's own address (path style), for reading what the app stored. */
  url: string;
  /** MEDIA_STORAGE=s3 and the S3_* variables that point the app at this bucket. */
  env: Record<string, string>;
  server: S3rver;
  close(): Promise<void>;
};

/** `configs`: s3rver's bucket configuration documents (e.g. a CORS rule). */
export async function startS3Bucket({ name, configs = [] }: { name: string; configs?: string[] }): Promise<S3Bucket> {
  const directory = fs.mkdtempSync(path.join(process.env.FRAMEHOOK_TEST_DIR ?? os.tmpdir(), `s3rver-${name}-`));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: [{ name, configs }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    url: `${endpoint}/${name}`,
    env: {
      MEDIA_STORAGE: "s3",
      S3_BUCKET: name,
      S3_ENDPOINT: endpoint,
      S3_REGION: "us-east-1",
      S3_FORCE_PATH_STYLE: "true",
      S3_ACCESS_KEY_ID: "S3RVER",
      S3_SECRET_ACCESS_KEY: "S3RVER",
    },
    server,
    async close() {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
