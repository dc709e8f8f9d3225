// Support's view: the credits (the gateway's balance, sales, adjustments),
// every owner's generations, spend per owner, and the
// delivery log, for "I paid and got nothing". Off without ADMIN_PASSWORD or
// ADMIN_EMAILS: then the page says how to turn it on, and shows nothing else.
import type { Metadata } from "next";
import { formatCredits, formatTimestamp } from "@/app/_components/format";
import { StateBadge } from "@/app/_components/state-badge";
import { adminEnabled, isAdmin } from "@/lib/viewer/admin";
import { env } from "@/lib/env";
import { listAllGenerations, listRecentDeliveries, ownerEmails, spendByOwner } from "@/lib/generations/admin-queries";
import { spendWindowBounds } from "@/lib/generations/spend-limit";
import { signOutAdmin } from "./actions";
import { CreditsPanel } from "./_components/credits-panel";
import { AdminSignInForm } from "./_components/sign-in-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin · Framehook", robots: { index: false } };

const card = "rounded-2xl bg-white p-4 shadow-sm ring-1 ring-zinc-200 sm:p-6 dark:bg-zinc-900 dark:ring-zinc-800";
const th = "px-2 py-1 text-left font-medium text-zinc-600 dark:text-zinc-400";
const td = "px-2 py-1 align-top";

/** An owner as support reads it: the account's email where there is one, the id beneath. */
function Owner({ id, email }: { id: string; email?: string }) {
  return (
    <>
      {email ? <span className="block text-sm">{email}</span> : null}
      <span className="font-mono text-xs">{id}</span>
    </>
  );
}

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function AdminPage({ searchParams }: { searchParams: SearchParams }) {
  if (!adminEnabled()) return <AdminOff />;
  if (!(await isAdmin())) {
    return (
      <main id="main" className="mx-auto max-w-6xl space-y-4 px-4 py-6 sm:px-6">
        <h1 className="text-lg font-semibold">Admin</h1>
        {env.ADMIN_EMAILS.length ? (
          <p className="text-sm">
            <a href="/sign-in" className="font-medium text-brand-700 underline dark:text-brand-400">
              Sign in
            </a>{" "}
            with an admin account{env.ADMIN_PASSWORD ? ", or enter the admin password." : "."}
          </p>
        ) : null}
        {env.ADMIN_PASSWORD ? <AdminSignInForm /> : null}
      </main>
    );
  }
  const raw = (await searchParams).q;
  const q = typeof raw === "string" && raw.trim() ? raw.trim().slice(0, 200) : undefined;
  const window = env.SPEND_LIMIT_WINDOW;
  const { start } = spendWindowBounds(window);
  const [generations, owners, deliveries] = await Promise.all([
    listAllGenerations({ q }),
    spendByOwner({ since: start }),
    listRecentDeliveries({ q }),
  ]);
  const emails = await ownerEmails([...owners.map((o) => o.ownerId), ...generations.map((g) => g.ownerId), ...deliveries.flatMap((d) => (d.ownerId ? [d.ownerId] : []))]);

  return (
    <main id="main" className="mx-auto max-w-6xl space-y-6 px-4 py-6 sm:px-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-lg font-semibold">Admin</h1>
        <form action={signOutAdmin}>
          <button type="submit" className="rounded text-sm font-medium text-brand-700 hover:underline dark:text-brand-400">
            Sign out
          </button>
        </form>
      </div>
      <CreditsPanel />
      <form role="search" className="flex flex-wrap gap-2">
        <label htmlFor="admin-q" className="sr-only">
          Email, owner, generation or task id
        </label>
        <input
          id="admin-q"
          name="q"
          defaultValue={q}
          placeholder="Email, owner, generation or task id"
          className="w-full max-w-md rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
        />
        <button type="submit" className="rounded-lg bg-brand-600 px-4 py-2 text-sm font-semibold text-white hover:bg-brand-700">
          Find
        </button>
      </form>

      <section aria-labelledby="owners" className={`${card} overflow-x-auto`}>
        <h2 id="owners" className="mb-1 font-semibold">
          Spend per owner
        </h2>
        <p className="mb-3 text-sm text-zinc-600 dark:text-zinc-400">
          Since {formatTimestamp(start.toISOString())} (window: {window}; cap:{" "}
          {env.SPEND_LIMIT_CREDITS > 0 ? formatCredits(env.SPEND_LIMIT_CREDITS) : "off"}). In flight counts at the estimate.
        </p>
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={th}>Owner</th>
              <th className={th}>Generations</th>
              <th className={th}>In flight</th>
              <th className={th}>Charged</th>
              <th className={th}>Last</th>
            </tr>
          </thead>
          <tbody>
            {owners.map((o) => (
              <tr key={o.ownerId} className="border-t border-zinc-100 dark:border-zinc-800">
                <td className={td}>
                  <a href={`/admin?q=${encodeURIComponent(o.ownerId)}`} className="text-brand-700 hover:underline dark:text-brand-400" data-testid="admin-owner">
                    <Owner id={o.ownerId} email={emails.get(o.ownerId)} />
                  </a>
                </td>
                <td className={`${td} tabular-nums`}>{o.generations}</td>
                <td className={`${td} tabular-nums`}>{formatCredits(o.inFlight)}</td>
                <td className={`${td} tabular-nums`}>{formatCredits(o.charged)}</td>
                <td className={`${td} tabular-nums`}>{o.lastAt ? formatTimestamp(o.lastAt) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="all-generations" className={`${card} overflow-x-auto`}>
        <h2 id="all-generations" className="mb-3 font-semibold">
          Generations{q ? ` matching ${q}` : ""}
        </h2>
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={th}>Created</th>
              <th className={th}>Owner</th>
              <th className={th}>State</th>
              <th className={th}>Prompt</th>
              <th className={th}>Gateway credits</th>
              <th className={th}>Owner&apos;s credits</th>
              <th className={th}>Ids</th>
            </tr>
          </thead>
          <tbody>
            {generations.map((g) => (
              <tr key={g.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="admin-generation">
                <td className={`${td} whitespace-nowrap tabular-nums`}>{formatTimestamp(g.createdAt)}</td>
                <td className={td}>
                  <Owner id={g.ownerId} email={emails.get(g.ownerId)} />
                </td>
                <td className={td}>
                  <StateBadge state={g.state} overdue={g.overdue} />
                  {g.error ? <div className="mt-1 text-xs text-red-700 dark:text-red-300">{g.error.code}</div> : null}
                </td>
                <td className={`${td} max-w-xs break-words`}>{g.prompt}</td>
                <td className={`${td} tabular-nums`}>{g.creditsConsumed === null ? "—" : formatCredits(g.creditsConsumed)}</td>
                <td className={`${td} tabular-nums`} data-testid="admin-charge">
                  {g.charge ? `${g.charge.credits.toLocaleString("en-US")} ${g.charge.status}` : "—"}
                </td>
                <td className={`${td} font-mono text-xs break-all`}>
                  <a href={`/admin?q=${encodeURIComponent(g.id)}`} className="text-brand-700 hover:underline dark:text-brand-400">
                    {g.id}
                  </a>
                  <div>{g.taskId ?? "no task"}</div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <section aria-labelledby="delivery-log" className={`${card} overflow-x-auto`}>
        <h2 id="delivery-log" className="mb-3 font-semibold">
          Delivery log
        </h2>
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={th}>At</th>
              <th className={th}>Source</th>
              <th className={th}>Outcome</th>
              <th className={th}>Reported</th>
              <th className={th}>Generation · owner</th>
              <th className={th}>Detail</th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id} className="border-t border-zinc-100 dark:border-zinc-800">
                <td className={`${td} whitespace-nowrap tabular-nums`}>{formatTimestamp(d.createdAt)}</td>
                <td className={td}>{d.source}</td>
                <td className={td}>{d.outcome}</td>
                <td className={td}>{d.reportedState ?? "—"}</td>
                <td className={`${td} font-mono text-xs break-all`}>
                  {d.generationId ?? d.taskId ?? "—"}
                  <div className="text-zinc-500">{d.ownerId ? <Owner id={d.ownerId} email={emails.get(d.ownerId)} /> : null}</div>
                </td>
                <td className={`${td} max-w-xs break-words text-xs`}>{d.detail ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </main>
  );
}

/** /admin before it is turned on: what to set, and nothing about the data. */
function AdminOff() {
  const code = "rounded bg-zinc-100 px-1 font-mono text-[0.8125rem] dark:bg-zinc-800";
  return (
    <main id="main" className="mx-auto max-w-2xl space-y-3 px-4 py-6 sm:px-6">
      <h1 className="text-lg font-semibold">Admin is off</h1>
      <p className="text-sm">
        Support&apos;s view (every owner&apos;s generations, spend, credits and the delivery log) opens once one of these is set in the
        server&apos;s environment, then the server is restarted:
      </p>
      <ul className="list-disc space-y-1 pl-5 text-sm">
        <li>
          <code className={code}>ADMIN_PASSWORD</code>: a password of at least 12 characters, asked here.
        </li>
        <li>
          <code className={code}>ADMIN_EMAILS</code>: signed-in accounts whose verified email is listed (comma-separated) are admins.
        </li>
      </ul>
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        <code className={code}>npm run doctor</code> says whether it is on. docs/operations.md has the details.
      </p>
    </main>
  );
}
