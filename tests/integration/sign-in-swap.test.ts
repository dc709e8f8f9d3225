// "Plug in your sign-in": replacing getViewer() is the whole change. Here a
// stand-in for Auth.js or Clerk (a session header the test sets) replaces it
// in the API's route handlers, called in this process as Next calls them
// (a production build cannot have a function swapped in), over the real
// database and simulator. Pages and server actions reach the viewer through
// the same function: tests/integration/viewer-pages-actions.test.ts checks
// them on the real server.
import { afterAll, expect, test, vi } from "vitest";
import { startSimulator } from "../support/global-setup";

vi.mock("@/lib/viewer/get-viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/viewer/get-viewer")>()),
  // A fork's version: the signed-in user, or null when signed out.
  getViewer: async (request?: Request) => {
    const user = request?.headers.get("x-session-user");
    return user ? { id: `user:${user}`, signedIn: true } : null;
  },
}));

const simulator = await startSimulator({ SIMULATOR_PENDING_MS: "300", SIMULATOR_LOG: "quiet" });
Object.assign(process.env, { GATEWAY_BASE_URL: simulator.url, PUBLIC_BASE_URL: "http://127.0.0.1:9", SUBMIT_RATE_LIMIT: "0" });
const { prisma } = await import("@/lib/db");
const generations = await import("@/app/api/generations/route");
const generation = await import("@/app/api/generations/[id]/route");

afterAll(() => simulator.child.kill("SIGKILL"));

const as = (user: string | null): Record<string, string> => (user ? { "x-session-user": user } : {});
const url = (path: string) => new URL(path, "http://127.0.0.1:9");
const submit = (user: string | null, prompt: string) =>
  generations.POST(
    new Request(url("/api/generations"), {
      method: "POST",
      headers: { "Content-Type": "application/json", ...as(user) },
      body: JSON.stringify({ model: "alpha-2.5-text-to-video-480p", input: { prompt, duration: 2 } }),
    }),
    { params: Promise.resolve({}) },
  );
const list = (user: string | null) => generations.GET(new Request(url("/api/generations"), { headers: as(user) }), { params: Promise.resolve({}) });
const read = (user: string | null, id: string) => generation.GET(new Request(url(`/api/generations/${id}`), { headers: as(user) }), { params: Promise.resolve({ id }) });

test("a swapped getViewer decides who owns what in the API: one user across devices, signed out is 401", async () => {
  const created = await submit("ann", "ann's boat");
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  expect((await prisma.generation.findUniqueOrThrow({ where: { id } })).ownerId).toBe("user:ann");

  // Any device (no cookie at all), same user: same gallery.
  const items = ((await (await list("ann")).json()) as { items: { id: string }[] }).items;
  expect(items.map((g) => g.id)).toEqual([id]);
  // Another user: a 404; nobody signed in: 401 and nothing stored.
  expect((await read("ben", id)).status).toBe(404);
  expect((await read("ann", id)).status).toBe(200);
  const before = await prisma.generation.count();
  expect((await submit(null, "anonymous")).status).toBe(401);
  expect((await list(null)).status).toBe(401);
  expect(await prisma.generation.count()).toBe(before);
});
