// Uploading a file through POST /api/uploads as one visitor, for integration tests.
import type { Visitor } from "./visitor";

export type { Visitor };
export type UploadAnswer = {
  status: number;
  body: { id?: string; error?: { code: string; message: string; fields?: Record<string, string[]> } } & Record<string, unknown>;
};

export async function upload(
  visitor: Visitor,
  bytes: Buffer,
  { model = "alpha-2.5-first-last-frame-480p", field = "first_frame_url", type = "application/octet-stream", chunked = false } = {},
): Promise<UploadAnswer> {
  await visitor.ownerId(); // this path skips proxy.ts, which issues the visitor cookie: a client has one from an earlier request
  const body = chunked ? new Blob([new Uint8Array(bytes)]).stream() : new Uint8Array(bytes);
  const response = await visitor(`/api/uploads?model=${encodeURIComponent(model)}&field=${field}`, {
    method: "POST",
    headers: { "Content-Type": type },
    body,
    ...(chunked ? { duplex: "half" } : {}),
  } as RequestInit);
  return { status: response.status, body: (await response.json()) as UploadAnswer["body"] };
}

/** Uploads and returns the id, failing the test when the upload is refused. */
export async function uploadId(visitor: Visitor, bytes: Buffer, options: Parameters<typeof upload>[2] = {}): Promise<string> {
  const answer = await upload(visitor, bytes, options);
  if (answer.status !== 201) throw new Error(`upload refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.id!;
}

export type PresignAnswer = {
  method: "post" | "stream";
  id: string;
  url: string;
  fields: Record<string, string>;
  maxBytes: number;
  expiresAt: string;
  finalize: { url: string; token: string };
};

type DirectOptions = { model?: string; field?: string; type?: string };

/** S3 storage: presign, then post the bytes straight to the bucket as a browser would; no finalize. */
export async function presignAndPost(
  visitor: Visitor,
  bytes: Buffer,
  { model = "alpha-2.5-first-last-frame-480p", field = "first_frame_url", type = "application/octet-stream" }: DirectOptions = {},
): Promise<{ start: PresignAnswer; postStatus: number }> {
  const started = await visitor("/api/uploads/presign", { method: "POST", json: { model, field } });
  if (started.status !== 200) throw new Error(`presign refused: ${started.status} ${await started.text()}`);
  const start = (await started.json()) as PresignAnswer;
  const form = new FormData();
  for (const [name, value] of Object.entries(start.fields)) form.append(name, value);
  form.append("file", new Blob([new Uint8Array(bytes)], { type }), "upload.bin");
  const posted = await fetch(start.url, { method: "POST", body: form });
  await posted.arrayBuffer();
  return { start, postStatus: posted.status };
}

/** S3 storage: presign, post the bytes straight to the bucket as a browser would, then finalize. */
export async function uploadDirect(visitor: Visitor, bytes: Buffer, options: DirectOptions = {}): Promise<UploadAnswer & { start: PresignAnswer; postStatus: number }> {
  const { start, postStatus } = await presignAndPost(visitor, bytes, options);
  const finalized = await visitor(start.finalize.url, { method: "POST", json: { token: start.finalize.token } });
  return { start, postStatus, status: finalized.status, body: (await finalized.json()) as UploadAnswer["body"] };
}
