// The media inputs of a submission (frames, reference videos), checked
// before any generation row or credit hold exists: an upload id must be the
// submitter's own upload and fit this model's limits (it may have been
// checked for another model), and the gateway must be able to fetch it; a
// pasted URL must name a public host. What the gateway receives in place of
// an upload id is a signed, expiring link to it.
import "server-only";
import dns from "node:dns/promises";
import net from "node:net";
import { env } from "@/lib/env";
import { AppError } from "@/lib/errors";
import { isPublicAddress } from "@/lib/copies/addresses";
import { inputLinkFor } from "@/lib/uploads/upload-links";
import { findUploads } from "@/lib/uploads/upload-store";
import { mediaFieldsOf, mediaValuesOf, type ModelSpec } from "@/lib/models/catalog";
import { isUploadId } from "@/lib/models/input-schema";
import { mediaProblems, type MediaFacts, type MediaFormat } from "@/lib/models/media-limits";
import { callbacksReachable } from "./callback-url";

const LOOKUP_TIMEOUT_MS = 3_000;

/** Whether the gateway can reach PUBLIC_BASE_URL: the same rule as callbacks (a remote gateway cannot fetch from localhost). */
const inputLinksReachable = callbacksReachable;


/** The upload ids the submission uses, once every media input passed; throws the field errors otherwise. */
export async function checkMediaInputs({ model, input, ownerId }: { model: ModelSpec; input: Record<string, unknown>; ownerId: string }): Promise<string[]> {
  const fields = mediaFieldsOf(model);
  const ids = fields.flatMap((field) => mediaValuesOf(field, input).filter(isUploadId));
  const uploads = new Map((ids.length ? await findUploads({ ids, ownerId }) : []).map((u) => [u.id, u]));
  // Every pasted URL's host is looked up at once.
  const urls = fields.flatMap((field) => mediaValuesOf(field, input).filter((v) => !isUploadId(v)));
  const refusals = new Map(await Promise.all(urls.map(async (url) => [url, await publicHostRefusal(url)] as const)));
  const errors: Record<string, string[]> = {};
  for (const field of fields) {
    const problems: string[] = [];
    for (const value of mediaValuesOf(field, input)) {
      if (!isUploadId(value)) {
        const refusal = refusals.get(value);
        if (refusal) problems.push(refusal);
        continue;
      }
      const upload = uploads.get(value);
      if (!upload) {
        problems.push(`This upload is gone (unused uploads are deleted after ${env.UPLOAD_UNUSED_HOURS} h) or is not yours: upload the file again.`);
        continue;
      }
      const facts: MediaFacts = { format: upload.format as MediaFormat, size: upload.size, width: upload.width, height: upload.height, durationSeconds: upload.durationSeconds, fps: upload.fps };
      problems.push(...mediaProblems({ facts, limits: field.limits, modelLabel: model.label }));
    }
    if (problems.length) errors[field.name] = problems;
  }
  if (ids.length && !inputLinksReachable()) {
    const message = `The gateway cannot fetch uploads from ${new URL(env.PUBLIC_BASE_URL).host}: set PUBLIC_BASE_URL to a public address (or a tunnel), or give public URLs.`;
    for (const field of fields) if (mediaValuesOf(field, input).some(isUploadId)) (errors[field.name] ??= []).push(message);
  }
  if (Object.keys(errors).length) throw new AppError("invalid_input", "Check the highlighted fields.", errors);
  return [...new Set(ids)];
}

/** The refusal of a submission whose uploads `ids` were deleted after they were checked: nothing was stored or sent. */
export function goneUploadsError({ model, input, ids }: { model: ModelSpec; input: Record<string, unknown>; ids: string[] }): AppError {
  const errors: Record<string, string[]> = {};
  for (const field of mediaFieldsOf(model)) {
    if (mediaValuesOf(field, input).some((v) => ids.includes(v))) errors[field.name] = ["This upload was deleted while the form was being sent: add the file again."];
  }
  return new AppError("gone", "An upload this form uses was deleted; nothing was sent. Add the file again.", errors);
}

/** The input as the gateway receives it: each upload id replaced by a signed link to the file. */
export function gatewayInputOf(model: ModelSpec, input: Record<string, unknown>): Record<string, unknown> {
  const out = { ...input };
  for (const field of mediaFieldsOf(model)) {
    const value = out[field.name];
    if (value === undefined) continue;
    const link = (v: string) => (isUploadId(v) ? inputLinkFor(v) : v);
    out[field.name] = Array.isArray(value) ? value.map((v) => link(v as string)) : link(value as string);
  }
  return out;
}

/**
 * Why the gateway could not be sent to this URL, or null. Only the host is
 * checked (every address it resolves to must be public): the app never
 * fetches a URL a user typed; the gateway does, and a task whose input it
 * cannot fetch fails there at no charge.
 */
async function publicHostRefusal(href: string): Promise<string | null> {
  const host = new URL(href).hostname.replace(/^\[|\]$/g, "");
  const refused = `${host} is not a public address: the gateway could not fetch it. Upload the file instead.`;
  if (net.isIP(host)) return isPublicAddress(host) ? null : refused;
  try {
    const addresses = await Promise.race([
      dns.lookup(host, { all: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), LOOKUP_TIMEOUT_MS).unref()),
    ]);
    return addresses.length && addresses.every((a) => isPublicAddress(a.address)) ? null : refused;
  } catch {
    return `${host} cannot be found: check the URL, or upload the file instead.`;
  }
}
