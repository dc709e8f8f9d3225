// "Plug in your sign-in": replacing getViewer() is the whole change. Here a
// stand-in for Auth.js or Clerk (a session header) replaces it, and the API's
// route handlers, the pages and the server actions are called in this process
// as Next calls them (a production build cannot have a function swapped in),
// over the real database and simulator. Pages and actions call getViewer()
// bare, and the stand-in then reads the request's headers from next/headers,
// as auth() does: the one piece of Next this test provides itself (the
// headers of the request being served), since no Next server runs here.
import { afterAll, describe, expect, test, vi } from "vitest";
import type { ReactElement } from "react";
import { startSimulator } from "../support/global-setup";

/** The headers of "the request being served" for pages and actions (next/headers). */
let servedHeaders = new Headers();
vi.mock("next/headers", () => ({ headers: async () => servedHeaders }));

vi.mock("@/lib/viewer/get-viewer", async (importOriginal) => ({
  ...(await importOriginal<typeof import("@/lib/viewer/get-viewer")>()),
  // A fork's version: the signed-in user, or null when signed out.
  getViewer: async (request?: Request) => {
    const headers = request ? request.headers : await (await import("next/headers")).headers();
    const user = headers.get("x-session-user");
    return user ? { id: `user:${user}`, signedIn: true } : null;
  },
}));

const simulator = await startSimulator({ SIMULATOR_PENDING_MS: "300", SIMULATOR_LOG: "quiet" });
Object.assign(process.env, { GATEWAY_BASE_URL: simulator.url, PUBLIC_BASE_URL: "http://127.0.0.1:9", SUBMIT_RATE_LIMIT: "0" });
const { prisma } = await import("@/lib/db");
const generations = await import("@/app/api/generations/route");
const generation = await import("@/app/api/generations/[id]/route");
const actions = await import("@/app/actions");
const { default: HomePage } = await import("@/app/page");
const { default: GenerationPage } = await import("@/app/generations/[id]/page");

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

/** Serves a page or an action "as" a user: the headers next/headers hands them. */
function servedAs(user: string | null) {
  servedHeaders = new Headers({ ...as(user), "x-forwarded-for": "127.0.0.1" });
}

/** The ids of the generations a rendered home page hands its gallery. */
function galleryIds(page: ReactElement): string[] {
  const find = (node: unknown): { items: { id: string }[] } | undefined => {
    if (!node || typeof node !== "object") return undefined;
    if (Array.isArray(node)) return node.map(find).find(Boolean);
    const props = (node as ReactElement<Record<string, unknown>>).props;
    if (props?.initialPage) return props.initialPage as { items: { id: string }[] };
    return find(props?.children);
  };
  return find(page)!.items.map((g) => g.id);
}

const formFor = (prompt: string) => {
  const form = new FormData();
  form.set("model", "alpha-2.5-text-to-video-480p");
  form.set("input.prompt", prompt);
  form.set("input.duration", "2");
  return form;
};

describe("pages and server actions follow the swapped getViewer", () => {
  test("the submit action creates for the signed-in user, and refuses the signed-out with nothing stored", async () => {
    servedAs("cai");
    const done = await actions.submitGenerationAction({ status: "idle" }, formFor("cai's kite"));
    expect(done).toMatchObject({ status: "success" });
    const row = await prisma.generation.findFirstOrThrow({ where: { prompt: "cai's kite" } });
    expect(row.ownerId).toBe("user:cai");

    servedAs(null);
    const before = await prisma.generation.count();
    expect(await actions.submitGenerationAction({ status: "idle" }, formFor("nobody's kite"))).toMatchObject({ status: "error", message: "Sign in to create videos." });
    expect(await prisma.generation.count()).toBe(before);
  });

  test("the home page lists the user's own generations, whichever device; the detail page is the owner's only", async () => {
    const created = await submit("dee", "dee's lighthouse");
    const { id } = (await created.json()) as { id: string };

    servedAs("dee");
    expect(galleryIds(await HomePage({ searchParams: Promise.resolve({}) }))).toContain(id);
    await expect(GenerationPage({ params: Promise.resolve({ id }) })).resolves.toBeTruthy();

    servedAs("eve");
    expect(galleryIds(await HomePage({ searchParams: Promise.resolve({}) }))).not.toContain(id);
    await expect(GenerationPage({ params: Promise.resolve({ id }) })).rejects.toMatchObject({ digest: expect.stringContaining("404") });
    servedAs(null);
    expect(galleryIds(await HomePage({ searchParams: Promise.resolve({}) }))).toEqual([]);
  });

  test("a card action (delete) acts only on the user's own generation", async () => {
    const created = await submit("fay", "fay's windmill");
    const { id } = (await created.json()) as { id: string };
    const listed = async () => ((await (await list("fay")).json()) as { items: { id: string }[] }).items.map((g) => g.id);
    servedAs("gus");
    expect(await actions.deleteGenerationAction(id)).toMatchObject({ status: "error" });
    expect(await listed()).toContain(id);
    servedAs("fay");
    expect(await actions.deleteGenerationAction(id)).toMatchObject({ status: "success" });
    expect(await listed()).not.toContain(id);
  });
});
