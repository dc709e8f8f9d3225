// "Plug in your sign-in": replacing getViewer() is the whole change. Here a
// stand-in for Auth.js or Clerk (a session header the test sets) replaces it,
// and the real routes, database and simulator follow without another edit.
import { afterAll, expect, test, vi } from "vitest";
import { startApp } from "../support/app";

vi.mock("@/lib/viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/viewer")>()),
  // A fork's version: the signed-in user, or null when signed out.
  getViewer: async (request?: Request) => {
    const user = request?.headers.get("x-session-user");
    return user ? { id: `user:${user}`, signedIn: true } : null;
  },
}));

const app = await startApp({ env: { SUBMIT_RATE_LIMIT: "0" } });
const { prisma } = await import("@/lib/db");

afterAll(() => app.close());

const as = (user: string | null): Record<string, string> => (user ? { "x-session-user": user } : {});
const submit = (user: string | null, prompt: string) =>
  app.fetch("/api/generations", { method: "POST", json: { model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } }, headers: as(user) });

test("a swapped getViewer decides who owns what: one user across devices, signed out is 401", async () => {
  const created = await submit("ann", "ann's boat");
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  expect((await prisma.generation.findUniqueOrThrow({ where: { id } })).ownerId).toBe("user:ann");

  // Another device (a fresh cookie jar), same user: same gallery.
  const otherDevice = app.visitor();
  const list = (await (await otherDevice("/api/generations", { headers: as("ann") })).json()) as { items: { id: string }[] };
  expect(list.items.map((g) => g.id)).toEqual([id]);
  // Another user: a 404; nobody signed in: 401 and nothing stored.
  expect((await app.fetch(`/api/generations/${id}`, { headers: as("ben") })).status).toBe(404);
  const before = await prisma.generation.count();
  expect((await submit(null, "anonymous")).status).toBe(401);
  expect((await app.fetch("/api/generations")).status).toBe(401);
  expect(await prisma.generation.count()).toBe(before);
});
