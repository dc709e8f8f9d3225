// Helpers for integration tests that drive generations through the app's API.
import type { startApp } from "./app";

type App = Awaited<ReturnType<typeof startApp>>;
export type GenerationBody = {
  id: string;
  taskId: string | null;
  state: string;
  creditsConsumed: number | null;
  resultUrls: string[];
  error: { code: string; message: string } | null;
};

export async function submitPrompt(app: App, prompt: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await app.fetch("/api/generations", {
    method: "POST",
    json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2, ...extra } },
    headers,
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

export async function readGeneration(app: App, id: string): Promise<GenerationBody> {
  const response = await app.fetch(`/api/generations/${id}`);
  if (!response.ok) throw new Error(`GET generation ${id} → ${response.status}`);
  return (await response.json()) as GenerationBody;
}
