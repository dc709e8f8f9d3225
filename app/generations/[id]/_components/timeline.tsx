// How a generation got where it is: submitted, every callback and poll with
// what the app did with it, completed. Offsets are from submission.
import { formatOffset, formatTimestamp } from "@/app/_components/format";
import type { Generation } from "@/lib/generations/generation";
import type { DeliveryEntry } from "@/lib/generations/queries";

const DOTS: Record<string, string> = {
  APPLIED: "bg-emerald-500",
  STILL_PENDING: "bg-amber-500",
  REJECTED: "bg-red-500",
  UNKNOWN_TASK: "bg-red-500",
  ERROR: "bg-red-500",
};

const COMPLETED: Partial<Record<Generation["state"], string>> = {
  SUCCESS: "Completed: ready",
  FAILURE: "Completed: failed, not charged",
  SUBMIT_FAILED: "Refused by the gateway, not charged",
};

export function Timeline({ generation, deliveries }: { generation: Generation; deliveries: DeliveryEntry[] }) {
  const start = generation.createdAt;
  const completed = generation.completedAt ? COMPLETED[generation.state] : undefined;
  return (
    <ol className="relative space-y-4 border-l border-zinc-200 pl-5 text-sm dark:border-zinc-800">
      <Entry at={start} start={start} dot="bg-brand-500" title="Submitted">
        {generation.taskId ? (
          <>
            task <code className="break-all">{generation.taskId}</code>
          </>
        ) : null}
      </Entry>
      {deliveries.map((d) => {
        // "callback reported SUCCESS → applied"; duplicates and late reports are grey: they changed nothing.
        const outcome = d.outcome.toLowerCase().replaceAll("_", " ");
        return (
          <Entry
            key={d.id}
            at={d.createdAt}
            start={start}
            dot={DOTS[d.outcome] ?? "bg-zinc-400"}
            title={`${d.source === "CALLBACK" ? "callback" : "poll"}${d.reportedState ? ` reported ${d.reportedState}` : ""} → ${outcome}`}
            testId="delivery"
          >
            {d.detail}
          </Entry>
        );
      })}
      {completed && generation.completedAt ? (
        <Entry at={generation.completedAt} start={start} dot={generation.state === "SUCCESS" ? "bg-emerald-500" : "bg-red-500"} title={completed} />
      ) : null}
    </ol>
  );
}

function Entry({
  at,
  start,
  dot,
  title,
  testId,
  children,
}: {
  at: string;
  start: string;
  dot: string;
  title: string;
  testId?: string;
  children?: React.ReactNode;
}) {
  return (
    <li className="relative" data-testid={testId}>
      <span className={`absolute top-1.5 -left-[1.6rem] size-2.5 rounded-full ring-4 ring-zinc-50 dark:ring-zinc-950 ${dot}`} aria-hidden />
      <p className="font-medium first-letter:uppercase">{title}</p>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">
        <time dateTime={at} title={formatTimestamp(at)} className="tabular-nums">
          {formatOffset(start, at)}
        </time>
        <span aria-hidden> · </span>
        <span className="tabular-nums">{formatTimestamp(at)}</span>
      </p>
      {children ? <p className="mt-0.5 text-xs break-words text-zinc-600 dark:text-zinc-400">{children}</p> : null}
    </li>
  );
}
