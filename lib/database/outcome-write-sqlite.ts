// The outcome write on SQLite (and libSQL servers): two statements (seven
// with a credit settlement and what it collects, one more with a ready email,
// one more for a capture: an earlier release) in one short transaction, sent as one batch
// (BEGIN IMMEDIATE … COMMIT on a file, one request to a server). The delivery
// INSERT reads changes(), the rows the UPDATE just changed, so nothing goes
// back to JavaScript in between.
import type { Client, InStatement, InValue, ResultSet } from "@libsql/client";
import type { DeliveryOutcome, GenerationState } from "@/lib/generated/prisma/client";
import { deliveryDetail, type OutcomeWrite, type OutcomeWriter, type WrittenOutcome } from "./outcome-write";

const SET_TERMINAL = `"state" = :state, "resultUrls" = :resultUrls, "creditsConsumed" = :creditsConsumed,
    "errorCode" = :errorCode, "errorMessage" = :errorMessage, "gatewayMetadata" = :gatewayMetadata, "resultUrlsDropped" = :resultUrlsDropped, "completedAt" = :now,`;

const update = (set: string) => `UPDATE "Generation" SET ${set} "lastHeardAt" = :now, "updatedAt" = :now
  WHERE "id" = :id AND "taskId" = :taskId
    AND ("state" = 'PENDING' OR ("state" = 'FAILURE' AND "errorCode" = :replacesFailureCode))
    AND (:createdAfter IS NULL OR "createdAt" > :createdAfter)
  RETURNING "id", "state", "createdAt", "updatedAt", "ownerId", "deletedAt", "callbackEnabled"`;

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

// The hold's capture or release: written when the generation is in the state
// this write sets and no settlement exists yet. The one writer makes that the
// write that moved it (terminal states never change); the unique keys and
// "settles" make a second one impossible whatever happens.
const INSERT_SETTLEMENT = `INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "settles", "note", "createdAt")
  SELECT g."ownerId", :settleKind,
    CASE WHEN :settleKind = 'RELEASE' THEN -h."amount" WHEN :charge IS NULL OR :charge >= -h."amount" THEN 0 ELSE -h."amount" - :charge END,
    :settleKey, :id, :id,
    CASE WHEN :settleKind = 'CAPTURE' AND :charge > -h."amount" THEN :overNote ELSE :note END,
    :now
  FROM "CreditEntry" h, "Generation" g
  WHERE h."idempotencyKey" = :holdKey AND g."id" = :id AND g."taskId" = :taskId AND g."state" = :state
    AND NOT EXISTS (SELECT 1 FROM "CreditEntry" s WHERE s."settles" = :id)
  ON CONFLICT DO NOTHING
  RETURNING "kind", "amount", "note"`;

// What a guest claim left owed takes its part of what the settlement gives back
// first (INSERT_CLAIM_COLLECTION below, lib/credits/owed.ts collectClaimOwedIn):
// the welcome credits the claim's videos held, once the bought credits they held
// came back. The same expression here and there, on the same claim row.
const claimTake = (back: string) => `COALESCE((
    SELECT MIN(c."welcomeOwed", MAX(0, c."heldReturned" + ${back} - c."heldBought")) - MIN(c."welcomeOwed", MAX(0, c."heldReturned" - c."heldBought"))
    FROM "Generation" g JOIN "GuestClaim" c ON c."guestId" = g."claimedFrom"
    WHERE g."id" = :id AND c."heldReturned" < c."heldBought" + c."welcomeOwed"), 0)`;

// What the settlement gives back, less the claim's part, pays what the owner owes
// (lib/credits/owed.ts), oldest purchase first, at most what is left: only
// when this write inserted the settlement (changes() is the INSERT before it).
const INSERT_COLLECTION = `INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "checkoutSessionId", "note", "createdAt")
  SELECT d."ownerId", 'COLLECT', -d."take", 'collect:' || :settleKey || ':' || d."checkoutSessionId", :id, d."checkoutSessionId", :collectNote, :now
  FROM (
    SELECT s."ownerId", p."checkoutSessionId",
      MIN(p."creditsOwed" - p."creditsCollected",
        s."amount" - ${claimTake('s."amount"')} - (SUM(p."creditsOwed" - p."creditsCollected") OVER (ORDER BY p."createdAt", p."checkoutSessionId") - (p."creditsOwed" - p."creditsCollected"))) AS "take"
    FROM "CreditEntry" s JOIN "Purchase" p ON p."ownerId" = s."ownerId"
    WHERE s."idempotencyKey" = :settleKey AND s."amount" > 0 AND changes() > 0 AND p."creditsOwed" > p."creditsCollected"
  ) AS d
  WHERE d."take" > 0
  RETURNING "amount"`;

// The purchases the rows just inserted paid (changes() is that INSERT's count).
const UPDATE_COLLECTED = `UPDATE "Purchase" SET
    "creditsCollected" = "creditsCollected" - (SELECT e."amount" FROM "CreditEntry" e WHERE e."idempotencyKey" = 'collect:' || :settleKey || ':' || "Purchase"."checkoutSessionId"),
    "updatedAt" = :now
  WHERE changes() > 0 AND EXISTS (SELECT 1 FROM "CreditEntry" e WHERE e."idempotencyKey" = 'collect:' || :settleKey || ':' || "Purchase"."checkoutSessionId")`;

// The ready email this write makes due (an outbox row, lib/notifications):
// when the generation is in the state this write set at this write's \`now\`
// (the write that moved it) and its owner asked for one. The unique
// (generationId, outcome) makes a second one impossible whatever happens.
const INSERT_READY_EMAIL = `INSERT INTO "ReadyEmail" ("generationId", "outcome", "ownerId", "state", "attempts", "nextRunAt", "giveUpAt", "createdAt")
  SELECT g."id", g."state", g."ownerId", 'PENDING', 0, :now, :giveUpAt, :now
  FROM "Generation" g
  WHERE g."id" = :id AND g."taskId" = :taskId AND g."state" = :state AND g."completedAt" = :now
    AND g."emailWhenReady" AND g."deletedAt" IS NULL
  ON CONFLICT DO NOTHING
  RETURNING "id"`;

// The claim's part (claimTake, which INSERT_COLLECTION left aside): what a
// guest claim left owed when this generation moved with the claim while its
// hold was open (lib/credits/owed.ts, collectClaimOwedIn): the bought credits
// the claim's holds held come back first, then up to welcomeOwed is taken. A row is written for every
// settlement of such a generation while that debt is open, 0 credits when
// nothing is taken, so that its key makes the count of what came back
// (heldReturned, the next statement: changes() is this INSERT's) happen once.
const INSERT_CLAIM_COLLECTION = `INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "note", "createdAt")
  SELECT s."ownerId", 'ADJUSTMENT',
    -(MIN(c."welcomeOwed", MAX(0, c."heldReturned" + s."amount" - c."heldBought")) - MIN(c."welcomeOwed", MAX(0, c."heldReturned" - c."heldBought"))),
    'claim:welcome:' || c."guestId" || ':' || :settleKey, :id, :collectNote, :now
  FROM "CreditEntry" s JOIN "Generation" g ON g."id" = :id JOIN "GuestClaim" c ON c."guestId" = g."claimedFrom"
  WHERE s."idempotencyKey" = :settleKey AND s."amount" > 0 AND c."heldReturned" < c."heldBought" + c."welcomeOwed"
  ON CONFLICT DO NOTHING`;

const UPDATE_CLAIM_RETURNED = `UPDATE "GuestClaim" SET
    "heldReturned" = "heldReturned" + (SELECT s."amount" FROM "CreditEntry" s WHERE s."idempotencyKey" = :settleKey)
  WHERE changes() > 0 AND "guestId" = (SELECT g."claimedFrom" FROM "Generation" g WHERE g."id" = :id)`;

// What a release written before gave back, for a capture's write that settled
// nothing because of it (a task flagged lost, then succeeded): read in the
// transaction, after the INSERT_SETTLEMENT that found it there.
const SELECT_RELEASED_BEFORE = `SELECT "amount" FROM "CreditEntry" WHERE "settles" = :id AND "kind" = 'RELEASE'`;

/** DateTime as Prisma's libSQL adapter writes it (ISO 8601, "+00:00"), so that Prisma reads it back and compares it as text. */
export const sqliteDateTime = (date: Date) => date.toISOString().replace("Z", "+00:00");

/** Writes that arrived together share a transaction, up to this many. */
const GROUP_MAX = 64;

type Queued = { write: OutcomeWrite; resolve: (written: WrittenOutcome) => void; reject: (error: unknown) => void };

/**
 * `connection` is called per transaction: the connection may be replaced
 * (after a lock error). `retry` waits out another connection's lock.
 *
 * Group commit: a commit costs an fsync of the WAL (milliseconds, on the
 * thread that runs SQLite), so the writes queued while one transaction ran
 * are committed together in the next. Each caller's answer still waits for
 * the COMMIT that stored its write. If a statement fails, the group is
 * rolled back and each write is tried alone, so one bad write fails only its caller.
 */
export function createSqliteOutcomeWriter({
  connection,
  retry,
}: {
  connection: () => Client;
  retry: <T>(operation: () => Promise<T>) => Promise<T>;
}): OutcomeWriter {
  const queue: Queued[] = [];
  let draining = false;

  const commit = async (writes: OutcomeWrite[]) => {
    const statements = writes.map(statementsOf);
    const results = await retry(() => connection().batch(statements.flat(), "write"));
    let next = 0;
    return writes.map((write, i) => {
      const mine = results.slice(next, (next += statements[i]!.length));
      return readResult(write, mine);
    });
  };

  const drain = async () => {
    draining = true;
    try {
      // Let the requests already read in this turn of the event loop queue their writes first.
      await new Promise((resolve) => setImmediate(resolve));
      while (queue.length > 0) {
        const group = queue.splice(0, GROUP_MAX);
        try {
          const written = await commit(group.map((q) => q.write));
          answerInTurns(group.map((q, i) => () => q.resolve(written[i]!)));
        } catch (error) {
          if (group.length === 1) group[0]!.reject(error);
          else for (const q of group) await commit([q.write]).then(([written]) => q.resolve(written!), q.reject);
        }
      }
    } finally {
      draining = false;
    }
  };

  return (write) =>
    new Promise<WrittenOutcome>((resolve, reject) => {
      queue.push({ write, resolve, reject });
      if (!draining) void drain();
    });
}

/**
 * Answers each caller in a turn of the event loop of its own: answered at
 * once, a group's callers would all go on (events, responses) in one long
 * stretch of the main thread, stalling every other request for its length.
 */
function answerInTurns(answers: (() => void)[]): void {
  const answer = (i: number) => {
    if (i >= answers.length) return;
    answers[i]!();
    setImmediate(answer, i + 1);
  };
  answer(0);
}

function statementsOf(write: OutcomeWrite): InStatement[] {
  const args = namedArgs(write);
  const statements: InStatement[] = [
    { sql: write.change.kind === "terminal" ? UPDATE_TERMINAL : UPDATE_HEARD, args },
    { sql: INSERT_DELIVERY, args },
  ];
  if (write.change.kind === "terminal" && write.settlement) {
    statements.push({ sql: INSERT_SETTLEMENT, args }, { sql: INSERT_COLLECTION, args }, { sql: UPDATE_COLLECTED, args });
    statements.push({ sql: INSERT_CLAIM_COLLECTION, args }, { sql: UPDATE_CLAIM_RETURNED, args });
  }
  if (write.change.kind === "terminal" && write.readyEmail) statements.push({ sql: INSERT_READY_EMAIL, args });
  if (write.change.kind === "terminal" && write.settlement?.kind === "CAPTURE") statements.push({ sql: SELECT_RELEASED_BEFORE, args });
  return statements;
}

/** The results of statementsOf's statements, in its order. */
function readResult(write: OutcomeWrite, results: ResultSet[]): WrittenOutcome {
  const [updated, inserted] = results as [ResultSet, ResultSet];
  const settling = write.change.kind === "terminal" && write.settlement !== undefined;
  const [settlement, collection] = settling ? [results[2], results[3]] : [undefined, undefined];
  const ready = write.change.kind === "terminal" && write.readyEmail ? results[settling ? 7 : 2] : undefined;
  const releasedBefore = write.change.kind === "terminal" && write.settlement?.kind === "CAPTURE" ? results.at(-1)?.rows[0] : undefined;
  const row = updated.rows[0];
  const delivery = inserted.rows[0];
  const settled = settlement?.rows[0];
  return {
    row: row
      ? {
          id: String(row.id),
          state: row.state as GenerationState,
          createdAt: new Date(String(row.createdAt)),
          updatedAt: new Date(String(row.updatedAt)),
          ownerId: String(row.ownerId),
          deletedAt: row.deletedAt === null ? null : new Date(String(row.deletedAt)),
          callbackEnabled: Boolean(row.callbackEnabled),
        }
      : null,
    delivery: delivery ? { id: Number(delivery.id), outcome: delivery.outcome as DeliveryOutcome } : null,
    settled: settled
      ? {
          kind: settled.kind as "CAPTURE" | "RELEASE",
          amount: Number(settled.amount),
          overHold: settled.note === write.settlement?.overNote,
          collected: (collection?.rows ?? []).reduce((sum, r) => sum - Number(r.amount), 0),
        }
      : null,
    readyEmail: (ready?.rows.length ?? 0) > 0,
    releasedBefore: row && !settled && releasedBefore ? Number(releasedBefore.amount) : null,
  };
}

function namedArgs({ generationId, taskId, change, replacesFailureCode, createdAfter, now, delivery, settlement, readyEmail }: OutcomeWrite): Record<string, InValue> {
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
          resultUrlsDropped: change.resultUrlsDropped,
          ...(settlement
            ? {
                settleKind: settlement.kind,
                settleKey: settlement.key,
                holdKey: settlement.holdKey,
                charge: settlement.charge,
                note: settlement.note,
                overNote: settlement.overNote,
                collectNote: settlement.collectNote,
              }
            : {}),
          ...(readyEmail ? { giveUpAt: sqliteDateTime(readyEmail.giveUpAt) } : {}),
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
