// Media in any S3-compatible bucket (AWS S3, Cloudflare R2, MinIO, Backblaze
// B2…) through the official SDK. Uploads stream in parts (lib-storage), so a
// large video never sits whole in memory; browsers fetch objects directly,
// through a short-lived presigned URL or a configured public base URL, and
// post uploads to it under a presigned policy.
import "server-only";
import fs from "node:fs";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { createPresignedPost } from "@aws-sdk/s3-presigned-post";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { overLimit, type MediaStorage } from "./storage";

/** S3's minimum part size; with two parts in flight a copy holds about 10 MB at most. */
export const S3_PART_SIZE = 5 * 1024 * 1024;
const PARTS_IN_FLIGHT = 2;

export type S3StorageOptions = {
  bucket: string;
  region: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
  publicBaseUrl?: string;
  presignSeconds: number;
};

export function createS3Storage(options: S3StorageOptions): MediaStorage {
  const { bucket } = options;
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    // Without explicit keys the SDK's own chain applies (AWS_* variables, an instance role).
    credentials:
      options.accessKeyId && options.secretAccessKey ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } : undefined,
    // Checksums only where S3 requires them: the SDK's default streaming
    // (aws-chunked) checksums are refused by several S3-compatible services.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });

  const storage: MediaStorage = {
    kind: "s3",

    async put({ key, body, contentType }) {
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: body, ContentType: contentType },
        partSize: S3_PART_SIZE,
        queueSize: PARTS_IN_FLIGHT,
        // A failed multipart upload is aborted, so no partial object appears.
        leavePartsOnError: false,
      });
      // lib-storage does not always notice that its source stream failed: make sure it does.
      const failed = new Promise<never>((_, reject) =>
        body.once("error", (error) => {
          void upload.abort().catch(() => {});
          reject(error);
        }),
      );
      await Promise.race([upload.done(), failed]);
    },

    async putFile({ key, file, contentType }) {
      await storage.put({ key, body: fs.createReadStream(file), contentType });
    },

    async getFile({ key, file, maxBytes }) {
      const object = await storage.get({ key });
      if (!object) return false;
      await writeCapped({ body: object.body, file, maxBytes });
      return true;
    },

    async get({ key, range }) {
      try {
        const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
        const object = await client.send(
          new GetObjectCommand({ Bucket: bucket, Key: key, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
        );
        return { body: object.Body as Readable, size: head.ContentLength ?? 0 };
      } catch (error) {
        if ((error as { name?: string }).name === "NotFound" || (error as { name?: string }).name === "NoSuchKey") return null;
        throw error;
      }
    },

    async url({ key, expiresSeconds }) {
      if (options.publicBaseUrl) return `${options.publicBaseUrl.replace(/\/+$/, "")}/${key}`;
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: expiresSeconds ?? options.presignSeconds });
    },

    async delete({ key }) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },

    async presignPost({ key, maxBytes, expiresSeconds }) {
      // Key fixes the object's name in the policy (an exact "key" condition);
      // content-length-range makes S3 refuse a larger body before storing it.
      return createPresignedPost(client, { Bucket: bucket, Key: key, Conditions: [["content-length-range", 1, maxBytes]], Expires: expiresSeconds });
    },
  };
  return storage;
}

/** Streams `body` to a new local `file`, cut (and the file removed) past `maxBytes`. */
async function writeCapped({ body, file, maxBytes }: { body: Readable; file: string; maxBytes: number }): Promise<void> {
  let bytes = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? overLimit(maxBytes) : null, chunk);
    },
  });
  try {
    await pipeline(body, cap, fs.createWriteStream(file, { flags: "wx" }));
  } catch (error) {
    await fs.promises.rm(file, { force: true });
    throw error;
  }
}
