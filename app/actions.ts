"use server";

import { headers } from "next/headers";
import { AppError } from "@/lib/errors";
import { createGeneration } from "@/lib/generations/create";
import type { Generation } from "@/lib/generations/generation";
import { visitorKey } from "@/lib/rate-limit";
import { getViewer } from "@/lib/viewer/get-viewer";

export type SubmitState = {
  status: "idle" | "success" | "error";
  message?: string;
  fieldErrors?: Record<string, string[]>;
  generation?: Generation;
};

const INPUT_PREFIX = "input.";

export async function submitGeneration(_previous: SubmitState, formData: FormData): Promise<SubmitState> {
  const input: Record<string, string> = {};
  for (const [key, value] of formData) {
    if (key.startsWith(INPUT_PREFIX) && typeof value === "string") input[key.slice(INPUT_PREFIX.length)] = value;
  }
  const key = formData.get("idempotencyKey");
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to create videos." };
  try {
    const { generation, error } = await createGeneration({
      body: { model: formData.get("model"), input },
      idempotencyKey: typeof key === "string" && key ? key : undefined,
      visitor: visitorKey(await headers()),
      viewer,
    });
    if (error) return { status: "error", message: error.message, generation };
    return { status: "success", message: "Submitted. Your video will appear in the gallery.", generation };
  } catch (error) {
    if (error instanceof AppError) return { status: "error", message: error.message, fieldErrors: error.fields };
    console.error("[framehook] submit failed", error);
    return { status: "error", message: "Something went wrong. Please try again." };
  }
}
