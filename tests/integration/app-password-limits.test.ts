// The access gate (APP_PASSWORD) against guessing: wrong passwords are counted
// in the database per client address and across every address, as the admin
// password's are; past either bound every password, the right one too, is
// refused 429 until the window ends, except from a browser holding the pass
// cookie the right password earned it. Through the real server (the proxy in
// front of pages and APIs, and the upload route, which skips the proxy), and
// the instance-wide bound and guesses sent at once through the gate's
// function at a fixed time.
import { afterAll, describe, expect, test, vi } from "vitest";
import { startApp } from "../support/app";

const PASSWORD = "correct horse battery staple 41";
process.env.APP_PASSWORD = PASSWORD;
// One trusted proxy: the client address is the X-Forwarded-For entry each request names.
const app = await startApp({ env: { APP_PASSWORD: PASSWORD, TRUSTED_PROXY_HOPS: "1" } });
const { prisma } = await import("@/lib/db");
const { addressKey } = await import("@/lib/rate-limit");
const { checkAccessGate, gatePassCookieName, GATE_ATTEMPTS, GATE_ATTEMPTS_ALL } = await import("@/lib/viewer/access-gate");

afterAll(() => app.close());

const WINDOW_MS = 15 * 60_000;
const basic = (password: string) => `Basic ${Buffer.from(`qa:${password}`).toString("base64")}`;
/** Client addresses of this run's own (counts are kept per address, in the file's database). */
const run = Math.floor(Math.random() * 250);
let next = 0;
const newAddress = () => `10.${run}.${next++}.7`;

const get = (path: string, { address, password, cookie }: { address: string; password?: string; cookie?: string }) =>
  fetch(`${app.baseUrl}${path}`, {
    redirect: "manual",
    headers: { "X-Forwarded-For": address, ...(password !== undefined ? { Authorization: basic(password) } : {}), ...(cookie ? { Cookie: cookie } : {}) },
  });
/** The pass cookie a response sets, as a Cookie header, or undefined. */
const passOf = (response: Response) => response.headers.getSetCookie().find((line) => line.startsWith(`${gatePassCookieName()}=`))?.split(";")[0];
const upload = ({ address, password }: { address: string; password: string }) =>
  fetch(`${app.baseUrl}/api/uploads?model=alpha-2.5-first-last-frame-to-video-480p&field=first_frame_url`, {
    method: "POST",
    headers: { "X-Forwarded-For": address, Authorization: basic(password), "Content-Type": "image/png" },
    body: new Uint8Array(64),
  });
const countOf = async (address: string) => (await prisma.rateLimit.findUnique({ where: { key: `app-password:${addressKey(address)}` } }))?.count ?? 0;

/** Waits for the next fixed window when this one ends within `ms`, so that the steps of a test share one window. */
async function inOneWindow(ms: number) {
  const left = WINDOW_MS - (Date.now() % WINDOW_MS);
  if (left < ms) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}

describe("wrong APP_PASSWORD attempts, through the real server", () => {
  test("10 wrong passwords from one address: then 429 for every password from it, the right one too; another address still passes", async () => {
    await inOneWindow(90_000);
    const address = newAddress();
    // A browser's first request, without credentials, is challenged and not counted.
    expect((await get("/", { address })).status).toBe(401);
    const statuses: number[] = [];
    for (let i = 0; i < GATE_ATTEMPTS; i++) statuses.push((await get("/api/generations", { address, password: `guess ${i}` })).status);
    expect(statuses).toEqual(Array(GATE_ATTEMPTS).fill(401));
    expect(await countOf(address)).toBe(GATE_ATTEMPTS);

    const guess = await get("/", { address, password: "guess 10" });
    expect(guess.status).toBe(429);
    expect(Number(guess.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await guess.text()).toMatch(/^Too many wrong passwords from your network\. Try again in \d+ min\.$/);
    const right = await get("/", { address, password: PASSWORD });
    expect(right.status).toBe(429);
    // Past the bound nothing is compared or counted.
    expect(await countOf(address)).toBe(GATE_ATTEMPTS);

    const other = await get("/", { address: newAddress(), password: PASSWORD });
    expect(other.status).toBe(200);
    expect(await other.text()).toContain("<html");
  });

  test("a browser that gave the right password keeps working, by its pass cookie, when its address is then shut; the pass alone, or with a wrong password, is no way in", async () => {
    await inOneWindow(90_000);
    const address = newAddress();
    const first = await get("/", { address, password: PASSWORD });
    expect(first.status).toBe(200);
    const pass = passOf(first);
    expect(pass).toBeDefined();
    expect(first.headers.getSetCookie().find((line) => line.startsWith(pass!))).toMatch(/HttpOnly/i);
    // The right password gave back the place it took.
    expect(await countOf(address)).toBe(0);

    // Someone else behind the same address guesses it shut.
    for (let i = 0; i < GATE_ATTEMPTS; i++) expect((await get("/api/generations", { address, password: `neighbour ${i}` })).status).toBe(401);
    expect((await get("/", { address, password: PASSWORD })).status).toBe(429);

    const withPass = await get("/", { address, password: PASSWORD, cookie: pass });
    expect(withPass.status).toBe(200);
    expect(await withPass.text()).toContain("<html");
    expect((await get("/", { address, cookie: pass })).status).toBe(401);
    expect((await get("/", { address, password: "neighbour 10", cookie: pass })).status).toBe(429);
    expect(await countOf(address)).toBe(GATE_ATTEMPTS);
  });

  test("wrong passwords on the upload route (outside the proxy) count the same; past the bound the pages refuse that address too", async () => {
    await inOneWindow(90_000);
    const address = newAddress();
    for (let i = 0; i < GATE_ATTEMPTS; i++) expect((await upload({ address, password: `upload guess ${i}` })).status).toBe(401);
    expect(await countOf(address)).toBe(GATE_ATTEMPTS);
    expect((await upload({ address, password: PASSWORD })).status).toBe(429);
    expect((await get("/", { address, password: PASSWORD })).status).toBe(429);
    expect(await prisma.upload.count()).toBe(0);
  });
});

describe("wrong APP_PASSWORD attempts from every address together", () => {
  test("200 wrong passwords from 200 addresses shut the gate for every address; each is logged with its address, never the password", async () => {
    const warnings = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    // At the start of a window of its own (an hour ahead), so that the server's tests above do not count here.
    const now = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 4 * WINDOW_MS + 1_000;
    const at = (address: string, password: string) => checkAccessGate({ authorization: basic(password), address, now });
    // Someone already in, before the flood: the right password earns a pass.
    const pass = (await at("192.0.2.199", PASSWORD)) as { ok: true; pass: string };
    expect(pass.pass).toBeTruthy();
    const cookies = `${gatePassCookieName()}=${pass.pass}`;
    const outcomes = [];
    for (let i = 0; i < GATE_ATTEMPTS_ALL; i++) outcomes.push(await at(`2001:db8:${run.toString(16)}:${i.toString(16)}::1`, `pool guess ${i}`));
    expect(outcomes.filter((o) => !o.ok && o.status === 401)).toHaveLength(GATE_ATTEMPTS_ALL);

    // A fresh address, never seen before: the right password waits too, and a guess learns nothing.
    const fresh = await at("192.0.2.200", PASSWORD);
    expect(fresh).toMatchObject({ ok: false, status: 429, message: expect.stringMatching(/^Too many wrong passwords from this server\. Try again in 15 min\.$/) });
    expect(await at("192.0.2.201", "pool guess 200")).toMatchObject({ ok: false, status: 429 });
    // A browser that got its pass before the flood keeps working through it (with its password).
    expect(await checkAccessGate({ authorization: basic(PASSWORD), cookies, address: "192.0.2.202", now })).toEqual({ ok: true });
    expect(await at("192.0.2.202", PASSWORD)).toMatchObject({ ok: false, status: 429 });
    expect(await checkAccessGate({ authorization: basic("pool guess 201"), cookies, address: "192.0.2.202", now })).toMatchObject({ ok: false, status: 429 });
    // The next window opens the gate again.
    expect(await checkAccessGate({ authorization: basic(PASSWORD), address: "192.0.2.200", now: now + WINDOW_MS })).toMatchObject({ ok: true });

    const logged = warnings.mock.calls.map((call) => call.join(" "));
    expect(logged.filter((line) => line.startsWith("[framehook] wrong APP_PASSWORD from 2001:db8:"))).toHaveLength(GATE_ATTEMPTS_ALL);
    expect(logged.join("\n")).not.toMatch(/pool guess|correct horse/);
    warnings.mockRestore();
  });
});

describe("wrong APP_PASSWORD attempts sent at the same moment", () => {
  test("60 guesses at once from one address, the right password among them: no more than 10 are compared, and the count stops at 10", async () => {
    const now = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS + 8 * WINDOW_MS + 1_000;
    const address = "198.51.100.60";
    const guesses = Array.from({ length: 60 }, (_, i) => (i === 45 ? PASSWORD : `burst guess ${i}`));
    const outcomes = await Promise.all(guesses.map((password) => checkAccessGate({ authorization: basic(password), address, now })));
    const compared = outcomes.filter((o) => !o.ok && o.status === 401);
    expect(compared.length).toBeLessThanOrEqual(GATE_ATTEMPTS);
    expect(outcomes.filter((o) => !o.ok && o.status === 429).length).toBeGreaterThanOrEqual(60 - GATE_ATTEMPTS - 1);
    const row = await prisma.rateLimit.findUnique({ where: { key: `app-password:${addressKey(address)}` } });
    expect(row?.count).toBe(compared.length);
    expect(row?.windowStart.getTime()).toBe(Math.floor(now / WINDOW_MS) * WINDOW_MS);
  });
});
