// The viewer's ledger as a history, newest first: each row as what it did to
// their balance. A hold stays "pending" until its video succeeds (the capture
// gives back what it did not cost) or fails (the release gives it all back).
// A purchase links to its receipt (/credits/receipt/:sessionId). Credits a
// refund or a dispute could not take back are owed, and each row that takes
// them from new credits says where they came from.
import Link from "next/link";
import { formatTimestamp } from "@/app/_components/format";
import { listCreditHistory, type CreditHistoryEntry } from "@/lib/credits/history";
import { card, formatCreditCount } from "./credits-ui";
import { ReceiptLink } from "./receipt-link";

const th = "px-2 py-1 text-left font-medium text-zinc-600 dark:text-zinc-400";
const td = "px-2 py-1 align-top";
const link = "font-medium text-brand-700 hover:underline dark:text-brand-400";

function Description({ entry }: { entry: CreditHistoryEntry }) {
  const video = entry.generationId ? (
    <Link href={`/generations/${entry.generationId}`} className={link}>
      video
    </Link>
  ) : (
    "video"
  );
  switch (entry.kind) {
    case "GRANT":
      return <>Welcome credits</>;
    case "PURCHASE":
      return (
        <>
          Bought: {entry.note ?? "credit pack"}
          {entry.checkoutSessionId ? (
            <>
              {" · "}
              <ReceiptLink sessionId={entry.checkoutSessionId} className={link} />
            </>
          ) : null}
        </>
      );
    case "HOLD":
      return <>Held for a {video}{entry.pending ? <span className="text-amber-700 dark:text-amber-400"> · pending</span> : null}</>;
    case "CAPTURE":
      return (
        <>
          The {video} is ready: it cost {formatCreditCount(entry.charged ?? 0)}
          {entry.amount > 0 ? `, the rest of the hold came back` : ""}
        </>
      );
    case "RELEASE":
      return <>The {video} did not succeed: the hold came back</>;
    // One string each: what the owner reads (and a test finds) as one sentence.
    case "REFUND":
      return <>{`Refunded purchase${entry.note ? `: ${entry.note}` : ""}`}</>;
    case "DISPUTE":
      return entry.note === "dispute won" ? (
        <>Dispute of a purchase won: its credits came back</>
      ) : (
        <>{`Disputed purchase: its credits were taken back${entry.note ? `; ${entry.note}` : ""}`}</>
      );
    case "COLLECT":
      return <>{`Credits owed for a refunded or disputed purchase, taken from ${entry.note ?? "new credits"}`}</>;
    case "ADJUSTMENT":
      if (entry.keptGuestWelcome && entry.generationId) {
        return <>{`Kept a guest’s work: welcome credits its video held are not added again (an account is welcomed once), taken from ${entry.note ?? "the hold"}`}</>;
      }
      if (entry.keptGuestWelcome) return <>Kept a guest&rsquo;s work: its unspent welcome credits are not added again (an account is welcomed once)</>;
      return <>Adjusted by the operator{entry.note ? `: ${entry.note}` : ""}</>;
  }
}

export async function CreditHistory({ ownerId }: { ownerId: string }) {
  const entries = await listCreditHistory({ ownerId, limit: 50 });
  return (
    <section aria-labelledby="history" className={`${card} overflow-x-auto`}>
      <h2 id="history" className="mb-3 text-base font-semibold">
        History
      </h2>
      {entries.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">Nothing yet.</p>
      ) : (
        <table className="w-full text-sm">
          <thead>
            <tr>
              <th className={th}>When</th>
              <th className={th}>What</th>
              <th className={`${th} text-right`}>Credits</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} className="border-t border-zinc-100 dark:border-zinc-800" data-testid="credit-history-row">
                <td className={`${td} whitespace-nowrap tabular-nums`}>{formatTimestamp(entry.createdAt.toISOString())}</td>
                <td className={td}>
                  <Description entry={entry} />
                </td>
                <td className={`${td} text-right tabular-nums`}>{entry.amount > 0 ? `+${entry.amount.toLocaleString("en-US")}` : entry.amount.toLocaleString("en-US")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
