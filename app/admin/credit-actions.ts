"use server";
// The operator's adjustment of an owner's credits, from /admin.
import { z } from "zod";
import { revalidatePath } from "next/cache";
import { adjustCredits, ADJUSTMENT_REASON_MAX_LENGTH } from "@/lib/credits/adjust";
import { toAppError } from "@/lib/errors";
import { isAdmin } from "@/lib/viewer/admin";

export type AdjustCreditsState = { status: "idle" | "success" | "error"; message?: string; fieldErrors?: Record<string, string[]> };

const schema = z.object({
  ownerId: z.string().trim().min(1, "Name the owner.").max(200),
  amount: z.coerce.number().int("A whole number of credits."),
  reason: z.string().trim().min(1, "Say why.").max(ADJUSTMENT_REASON_MAX_LENGTH),
  key: z.string().min(8).max(100),
});

export async function adjustCreditsAction(_previous: AdjustCreditsState, formData: FormData): Promise<AdjustCreditsState> {
  if (!(await isAdmin())) return { status: "error", message: "Sign in as an admin first." };
  const parsed = schema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) return { status: "error", message: "Check the highlighted fields.", fieldErrors: z.flattenError(parsed.error).fieldErrors };
  const { ownerId, amount, reason, key } = parsed.data;
  let answer: AdjustCreditsState;
  try {
    const { applied, balance } = await adjustCredits({ ownerId, amount, reason, idempotencyKey: key });
    const has = `${balance.toLocaleString("en-US")} credits`;
    answer = { status: "success", message: applied ? `Done: ${ownerId} now has ${has}.` : `Already done: ${ownerId} has ${has}.` };
  } catch (error) {
    const { message, fields } = toAppError(error);
    return { status: "error", message, fieldErrors: fields };
  }
  revalidatePath("/admin");
  return answer;
}
