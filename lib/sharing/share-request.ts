// The body of a share request, the same for a video and a comparison:
// `{ showPrompt }`, optional (default true), or no body at all.
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { readJson } from "@/lib/http";

const shareRequest = z.object({ showPrompt: z.boolean().default(true) }).strict();

export async function readShareRequest(request: Request): Promise<{ showPrompt: boolean }> {
  // A body is optional: none shares with the prompt shown.
  const body = request.headers.get("content-length") === "0" || !request.body ? {} : await readJson(request);
  const parsed = shareRequest.safeParse(body);
  if (!parsed.success) throw new AppError("invalid_input", "Send { showPrompt: boolean } or no body.", z.flattenError(parsed.error).fieldErrors as Record<string, string[]>);
  return parsed.data;
}
