"use server";
// What a gallery card can do to its generation: retry it, or delete it from
// the gallery. Thin: parse, call one domain function, answer a typed state.
import { headers } from "next/headers";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import type { Generation } from "@/lib/generations/generation";
import { hideGeneration } from "@/lib/generations/hide";
import { retryGeneration } from "@/lib/generations/retry";
import { visitorKey } from "@/lib/rate-limit";
import { getViewer } from "@/lib/viewer";

export type CardActionState = { status: "success" | "error"; message: string; generation?: Generation };

const generationId = z.string().min(1).max(100);

export async function retryGenerationAction(id: unknown): Promise<CardActionState> {
  const parsed = generationId.safeParse(id);
  if (!parsed.success) return { status: "error", message: "No such generation." };
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to create videos." };
  try {
    const { generation, error } = await retryGeneration({ id: parsed.data, visitor: visitorKey(await headers()), ownerId: viewer.id });
    if (error) return { status: "error", message: error.message, generation };
    return { status: "success", message: "Retrying: a new generation was submitted.", generation };
  } catch (error) {
    return failure(error, "retry");
  }
}

export async function deleteGenerationAction(id: unknown): Promise<CardActionState> {
  const parsed = generationId.safeParse(id);
  if (!parsed.success) return { status: "error", message: "No such generation." };
  const viewer = await getViewer();
  if (!viewer) return { status: "error", message: "Sign in to manage videos." };
  try {
    const outcome = await hideGeneration({ id: parsed.data, ownerId: viewer.id });
    if (outcome === "not_found") return { status: "error", message: "Only your own videos can be deleted." };
    return { status: "success", message: "Deleted from the gallery." };
  } catch (error) {
    return failure(error, "delete");
  }
}

function failure(error: unknown, what: string): CardActionState {
  if (error instanceof AppError) return { status: "error", message: error.message };
  console.error(`[framehook] ${what} failed`, error);
  return { status: "error", message: "Something went wrong. Please try again." };
}
