// The outcome write on SQLite (and libSQL servers): one short transaction of
// two statements, sent as one batch (BEGIN IMMEDIATE … COMMIT on a file, one
// request to a server). The delivery INSERT reads changes(), the rows the
// UPDATE just changed, so nothing goes back to JavaScript in between.
import type { Client, InStatement, InValue } from "@libsql/client";
import type { DeliveryOutcome, GenerationState } from "@/lib/generated/prisma/client";
import { deliveryDetail, type OutcomeWrite, type OutcomeWriter } from "./outcome-write";

const SET_TERMINAL = `"state" = :state, "resultUrls" = :resultUrls, "creditsConsumed" = :creditsConsumed,
    "errorCode" = :errorCode, "errorMessage" = :errorMessage, "gatewayMetadata" = :gatewayMetadata, "completedAt" = :now,`;

const update = (set: string) => `UPDATE "Generation" SET ${set} "lastHeardAt" = :now, "updatedAt" = :now
  WHERE "id" = :id AND "taskId" = :taskId
    AND ("state" = 'PENDING' OR ("state" = 'FAILURE' AND "errorCode" = :replacesFailureCode))
    AND (:createdAfter IS NULL OR "createdAt" > :createdAfter)
  RETURNING "id", "state", "updatedAt", "ownerId"`;

const UPDATE_HEARD = update("");
const UPDATE_TERMINAL = update(SET_TERMINAL);

// changes() is the UPDATE's count: the INSERT that reads it has not completed.
const INSERT_DELIVERY = `INSERT INTO "Delivery" ("generationId", "taskId", "source", "outcome", "reportedState", "detail", "createdAt")
  SELECT :id, :taskId, :source,
    CASE WHEN changes() > 0 THEN :ifMatched WHEN "state" = :duplicateOf THEN 'DUPLICATE' ELSE 'LATE_IGNORED' END,
    :reportedState, :detail, :now
  FROM "Generation"
  WHERE "id" = :id AND (changes() > 0 OR (:record AND (NOT :onlyIfHeld OR "taskId" = :taskId)))
  RETURNING "id", "outcome"`;

/** DateTime as Prisma's libSQL adapter writes it (ISO 8601, "+00:00"), so that Prisma reads it back and compares it as text. */
export const sqliteDateTime = (date: Date) => date.toISOString().replace("Z", "+00:00");

/** `connection` is called per write: the connection may be replaced (after a lock error). `retry` waits out another connection's lock. */
export function createSqliteOutcomeWriter({
  connection,
  retry,
}: {
  connection: () => Client;
  retry: <T>(operation: () => Promise<T>) => Promise<T>;
}): OutcomeWriter {
  return async (write: OutcomeWrite) => {
    const args = namedArgs(write);
    const statements: InStatement[] = [
      { sql: write.change.kind === "terminal" ? UPDATE_TERMINAL : UPDATE_HEARD, args },
      { sql: INSERT_DELIVERY, args },
    ];
    const [updated, inserted] = await retry(() => connection().batch(statements, "write"));
    const row = updated!.rows[0];
    const delivery = inserted!.rows[0];
    return {
      row: row
        ? { id: String(row.id), state: row.state as GenerationState, updatedAt: new Date(String(row.updatedAt)), ownerId: String(row.ownerId) }
        : null,
      delivery: delivery ? { id: Number(delivery.id), outcome: delivery.outcome as DeliveryOutcome } : null,
    };
  };
}

function namedArgs({ generationId, taskId, change, replacesFailureCode, createdAfter, now, delivery }: OutcomeWrite): Record<string, InValue> {
  const notMatched = delivery.ifNotMatched === "skip" ? null : delivery.ifNotMatched;
  const terminal: Record<string, InValue> =
    change.kind === "terminal"
      ? {
          state: change.state,
          resultUrls: change.resultUrls,
          creditsConsumed: change.creditsConsumed,
          errorCode: change.errorCode,
          errorMessage: change.errorMessage,
          gatewayMetadata: change.gatewayMetadata,
        }
      : {};
  return {
    id: generationId,
    taskId,
    now: sqliteDateTime(now),
    createdAfter: createdAfter ? sqliteDateTime(createdAfter) : null,
    replacesFailureCode: replacesFailureCode ?? null,
    source: delivery.source,
    ifMatched: delivery.ifMatched,
    reportedState: delivery.reportedState,
    detail: deliveryDetail(delivery.detail),
    duplicateOf: notMatched?.duplicateOf ?? null,
    record: notMatched ? 1 : 0,
    onlyIfHeld: notMatched?.onlyIfHeld ? 1 : 0,
    ...terminal,
  };
}
