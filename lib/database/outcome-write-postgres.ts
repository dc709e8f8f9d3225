// The outcome write on PostgreSQL: one statement, hence one round trip and
// one implicit transaction. The conditional UPDATE … RETURNING, the delivery
// INSERT and a terminal change's credit settlement are data-modifying CTEs of
// the same statement, so a restart, a killed instance or a lost connection
// leaves all or none.
import type pg from "pg";
import type { DeliveryOutcome, GenerationState } from "@/lib/generated/prisma/client";
import { deliveryDetail, type OutcomeWrite, type OutcomeWriter } from "./outcome-write";

// $1 id, $2 taskId, $3 now, $4 createdAfter, $5 replacesFailureCode,
// $6 source, $7 outcome if matched, $8 reportedState, $9 detail,
// $10 duplicateOf, $11 record when not matched, $12 only if held;
// a terminal change adds $13 state … $18 gatewayMetadata, $19 resultUrlsDropped,
// and its settlement $20 kind (null: none), $21 charge, $22 key, $23 the hold's key, $24 note, $25 note over the hold,
// $26 the note of what it collects of credits owed, $27 the ready email's give-up time (null: none).

/** The message of the cast that fails a write whose claim is not in its snapshot yet (see SETTLEMENT). */
const CLAIM_NOT_VISIBLE = "framehook: claim not yet visible:";
/** A claim commits once: a second run of the statement sees it. More runs are a defect, not a race. */
const CLAIM_RETRIES = 3;

const SET_TERMINAL = `"state" = $13::"GenerationState", "resultUrls" = $14::text, "creditsConsumed" = $15::double precision,
    "errorCode" = $16::text, "errorMessage" = $17::text, "gatewayMetadata" = $18::text, "resultUrlsDropped" = $19::integer, "completedAt" = $3::timestamp(3),`;

// Timestamps travel as ISO text into timestamp(3) columns (a time zone in the
// input is ignored: the value is UTC, as Prisma writes it) and come back as
// timestamptz, which pg parses without the process's time zone.
//
// `current` is read only when the update matched nothing, FOR SHARE: a
// locking read sees the latest committed version of the row, so a duplicate
// that waited on a concurrent transition reads SUCCESS, not the snapshot's PENDING.
//
// `settled` inserts only FROM `updated`: only the write that moved the row
// settles, with the owner the row has under its lock (a claim that moved the
// generation moved its hold too). It gives back what the hold did not cost.
// When a capture's write settles nothing because a release came first (the
// task was flagged lost, then succeeded), the final SELECT reads what that
// release gave back (`releasedBefore`): the statement's snapshot holds no row
// of its own CTEs, so it is the earlier release, never this write's.
//
// What it gives back pays first what a guest claim left owed, when the
// generation moved with that claim while its hold was open (lib/credits/owed.ts,
// collectClaimOwedIn): the guest's welcome credits are never the account's to
// pay its own debts with. `claim_debt` locks the claim's row (FOR UPDATE: a
// concurrent settlement of another of its videos is waited for, and its
// count of what came back is read at its latest version), `claim_take` takes
// what the rule says once the bought credits those holds held came back,
// `claim_returned` counts what came back, `claim_collection` writes the row
// (0 credits when nothing is taken, as on SQLite).
//
// What is left pays what the owner owes (lib/credits/owed.ts):
// `debts` locks every purchase of the owner (FOR UPDATE, whatever they owe,
// so a refund being written is waited for) and reads each one's latest
// version; `shares` takes from the oldest first, at most what is left;
// `collected` and `collection` record it on the purchases and as COLLECT rows.
// The locks come in the app's order: the claim's row, then the purchases.
//
// A claim that committed while this statement waited for the generation's
// row is not in the statement's snapshot, though the row it moved is: then
// `claim_visible` fails the statement (nothing is written) and the writer runs it
// again, with a snapshot that sees the claim.
const SETTLEMENT = `, settled AS (
  INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "settles", "note", "createdAt")
  SELECT u."ownerId", $20::text::"CreditEntryKind",
    CASE WHEN $20::text = 'RELEASE' THEN -h."amount" WHEN $21::integer IS NULL OR $21::integer >= -h."amount" THEN 0 ELSE -h."amount" - $21::integer END,
    $22::text, $1, $1,
    CASE WHEN $20::text = 'CAPTURE' AND $21::integer > -h."amount" THEN $25::text ELSE $24::text END,
    $3::timestamp(3)
  FROM updated AS u JOIN "CreditEntry" AS h ON h."idempotencyKey" = $23::text
  WHERE $20::text IS NOT NULL AND NOT EXISTS (SELECT FROM "CreditEntry" AS s WHERE s."settles" = $1)
  ON CONFLICT DO NOTHING
  RETURNING "ownerId", "kind", "amount", "note"
), claim_debt AS MATERIALIZED (
  SELECT c."guestId", c."welcomeOwed", c."heldBought", c."heldReturned", s."ownerId", s."amount" AS "back"
  FROM updated AS u JOIN "GuestClaim" AS c ON c."guestId" = u."claimedFrom" CROSS JOIN settled AS s
  WHERE s."amount" > 0 AND c."heldReturned" < c."heldBought" + c."welcomeOwed"
  FOR UPDATE OF c
), claim_take AS MATERIALIZED (
  SELECT d."guestId", d."ownerId", d."back",
    LEAST(d."welcomeOwed", GREATEST(0, d."heldReturned" + d."back" - d."heldBought")) - LEAST(d."welcomeOwed", GREATEST(0, d."heldReturned" - d."heldBought")) AS "take"
  FROM claim_debt AS d
), debts AS MATERIALIZED (
  SELECT p."checkoutSessionId", p."creditsOwed" - p."creditsCollected" AS "outstanding", p."createdAt"
  FROM "Purchase" AS p
  WHERE p."ownerId" = (SELECT "ownerId" FROM settled WHERE "amount" > 0)
  FOR UPDATE
), shares AS MATERIALIZED (
  SELECT d."checkoutSessionId",
    LEAST(d."outstanding", s."amount" - COALESCE((SELECT t."take" FROM claim_take AS t), 0)
      - (SUM(d."outstanding") OVER (ORDER BY d."createdAt", d."checkoutSessionId") - d."outstanding")) AS "take"
  FROM debts AS d CROSS JOIN settled AS s WHERE d."outstanding" > 0
), collected AS (
  UPDATE "Purchase" AS p SET "creditsCollected" = p."creditsCollected" + c."take", "updatedAt" = $3::timestamp(3)
  FROM shares AS c WHERE p."checkoutSessionId" = c."checkoutSessionId" AND c."take" > 0
  RETURNING p."checkoutSessionId"
), collection AS (
  INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "checkoutSessionId", "note", "createdAt")
  SELECT s."ownerId", 'COLLECT'::"CreditEntryKind", -c."take", 'collect:' || $22::text || ':' || c."checkoutSessionId", $1, c."checkoutSessionId", $26::text, $3::timestamp(3)
  FROM shares AS c CROSS JOIN settled AS s WHERE c."take" > 0
  RETURNING "amount"
), ready AS (
  INSERT INTO "ReadyEmail" ("generationId", "outcome", "ownerId", "state", "attempts", "nextRunAt", "giveUpAt", "createdAt")
  SELECT u."id", u."state"::text, u."ownerId", 'PENDING'::"ReadyEmailState", 0, $3::timestamp(3), $27::timestamp(3), $3::timestamp(3)
  FROM updated AS u
  WHERE $27::timestamp(3) IS NOT NULL AND u."emailWhenReady" AND u."deletedAt" IS NULL
  ON CONFLICT DO NOTHING
  RETURNING "id"
), claim_returned AS (
  UPDATE "GuestClaim" AS c SET "heldReturned" = c."heldReturned" + t."back" FROM claim_take AS t WHERE c."guestId" = t."guestId"
  RETURNING c."guestId"
), claim_collection AS (
  INSERT INTO "CreditEntry" ("ownerId", "kind", "amount", "idempotencyKey", "generationId", "note", "createdAt")
  SELECT t."ownerId", 'ADJUSTMENT'::"CreditEntryKind", -t."take", 'claim:welcome:' || t."guestId" || ':' || $22::text, $1, $26::text, $3::timestamp(3)
  FROM claim_take AS t
  RETURNING "amount"
), claim_visible AS (
  SELECT CASE WHEN u."claimedFrom" IS NOT NULL AND NOT EXISTS (SELECT FROM "GuestClaim" AS c WHERE c."guestId" = u."claimedFrom")
    THEN CAST('${CLAIM_NOT_VISIBLE} ' || u."claimedFrom" AS integer) ELSE 0 END AS "checked"
  FROM updated AS u
)`;

const statement = (set: string, settlement = "") => `WITH updated AS (
  UPDATE "Generation" SET ${set} "lastHeardAt" = $3::timestamp(3), "updatedAt" = $3::timestamp(3)
  WHERE "id" = $1 AND "taskId" = $2::text
    AND ("state" = 'PENDING' OR ("state" = 'FAILURE' AND "errorCode" = $5::text))
    AND ($4::timestamp(3) IS NULL OR "createdAt" > $4::timestamp(3))
  RETURNING "id", "state", "createdAt", "updatedAt", "ownerId", "deletedAt", "callbackEnabled", "emailWhenReady", "claimedFrom"
), current AS (
  SELECT "state", "taskId" FROM "Generation" WHERE "id" = $1 AND NOT EXISTS (SELECT FROM updated) FOR SHARE
), delivery AS (
  INSERT INTO "Delivery" ("generationId", "taskId", "source", "outcome", "reportedState", "detail", "createdAt")
  SELECT $1, $2::text, $6::"DeliverySource",
    CASE WHEN EXISTS (SELECT FROM updated) THEN $7::"DeliveryOutcome"
      WHEN c."state"::text = $10::text THEN 'DUPLICATE'::"DeliveryOutcome"
      ELSE 'LATE_IGNORED'::"DeliveryOutcome" END,
    $8::text, $9::text, $3::timestamp(3)
  FROM (SELECT) AS one LEFT JOIN current AS c ON true
  WHERE EXISTS (SELECT FROM updated) OR ($11::boolean AND c."state" IS NOT NULL AND (NOT $12::boolean OR c."taskId" = $2::text))
  RETURNING "id", "outcome"
)${settlement}
SELECT u."id", u."state", u."createdAt" AT TIME ZONE 'UTC' AS "createdAt", u."updatedAt" AT TIME ZONE 'UTC' AS "updatedAt", u."ownerId",
  u."deletedAt" AT TIME ZONE 'UTC' AS "deletedAt", u."callbackEnabled", d."id" AS "deliveryId", d."outcome"${
    settlement
      ? `, s."kind" AS "settledKind", s."amount" AS "settledAmount", s."note" AS "settledNote", (SELECT -SUM("amount") FROM collection) AS "collected",
        EXISTS (SELECT FROM ready) AS "readyEmail",
        (SELECT -SUM("amount") FROM claim_collection) AS "claimCollected", (SELECT MAX("checked") FROM claim_visible) AS "claimChecked",
        CASE WHEN $20::text = 'CAPTURE' AND u."id" IS NOT NULL AND s."kind" IS NULL
          THEN (SELECT r."amount" FROM "CreditEntry" AS r WHERE r."settles" = $1 AND r."kind" = 'RELEASE') END AS "releasedBefore"`
      : ""
  }
FROM (SELECT) AS one LEFT JOIN updated AS u ON true LEFT JOIN delivery AS d ON true${settlement ? " LEFT JOIN settled AS s ON true" : ""}`;

const HEARD = statement("");
const TERMINAL = statement(SET_TERMINAL, SETTLEMENT);

/** One row always: the update's columns are null when it matched nothing, the delivery's when none was stored. */
type ResultRow = {
  id: string | null;
  state: GenerationState | null;
  createdAt: Date | null;
  updatedAt: Date | null;
  ownerId: string | null;
  deletedAt: Date | null;
  callbackEnabled: boolean | null;
  deliveryId: number | null;
  outcome: DeliveryOutcome | null;
  /** Terminal writes only. */
  settledKind?: "CAPTURE" | "RELEASE" | null;
  settledAmount?: number | null;
  settledNote?: string | null;
  collected?: number | string | null;
  readyEmail?: boolean | null;
  releasedBefore?: number | null;
};

export function createPostgresOutcomeWriter(pool: pg.Pool): OutcomeWriter {
  return async (write: OutcomeWrite) => {
    const { rows } = await queryAfterClaims(pool, write.change.kind === "terminal" ? TERMINAL : HEARD, parameters(write));
    const [result] = rows;
    if (!result) throw new Error("The outcome write returned no row");
    return {
      row:
        result.id === null
          ? null
          : {
              id: result.id,
              state: result.state!,
              createdAt: result.createdAt!,
              updatedAt: result.updatedAt!,
              ownerId: result.ownerId!,
              deletedAt: result.deletedAt,
              callbackEnabled: result.callbackEnabled!,
            },
      delivery: result.deliveryId === null ? null : { id: result.deliveryId, outcome: result.outcome! },
      settled: result.settledKind
        ? {
            kind: result.settledKind,
            amount: Number(result.settledAmount),
            overHold: result.settledNote === write.settlement?.overNote,
            collected: Number(result.collected ?? 0),
          }
        : null,
      readyEmail: result.readyEmail === true,
      releasedBefore: result.releasedBefore == null ? null : Number(result.releasedBefore),
    };
  };
}

async function queryAfterClaims(pool: pg.Pool, sql: string, values: unknown[]) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await pool.query<ResultRow>(sql, values);
    } catch (error) {
      const invalidText = (error as { code?: string }).code === "22P02";
      if (!invalidText || !String((error as Error).message).includes(CLAIM_NOT_VISIBLE) || attempt >= CLAIM_RETRIES) throw error;
    }
  }
}

function parameters({ generationId, taskId, change, replacesFailureCode, createdAfter, now, delivery, settlement, readyEmail }: OutcomeWrite): unknown[] {
  const notMatched = delivery.ifNotMatched === "skip" ? null : delivery.ifNotMatched;
  const common = [
    generationId,
    taskId,
    now.toISOString(),
    createdAfter?.toISOString() ?? null,
    replacesFailureCode ?? null,
    delivery.source,
    delivery.ifMatched,
    delivery.reportedState,
    deliveryDetail(delivery.detail),
    notMatched?.duplicateOf ?? null,
    notMatched !== null,
    notMatched?.onlyIfHeld ?? false,
  ];
  if (change.kind === "heard") return common;
  return [
    ...common,
    change.state,
    change.resultUrls,
    change.creditsConsumed,
    change.errorCode,
    change.errorMessage,
    change.gatewayMetadata,
    change.resultUrlsDropped,
    settlement?.kind ?? null,
    settlement?.charge ?? null,
    settlement?.key ?? null,
    settlement?.holdKey ?? null,
    settlement?.note ?? null,
    settlement?.overNote ?? null,
    settlement?.collectNote ?? null,
    readyEmail?.giveUpAt.toISOString() ?? null,
  ];
}
