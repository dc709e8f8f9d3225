-- #12: "the gateway does not know this task" is a flag with a start time, never
-- a FAILURE; an idempotency key remembers the request it was first used with.
ALTER TABLE "Generation" ADD COLUMN "notFoundSince" DATETIME;
ALTER TABLE "Generation" ADD COLUMN "requestHash" TEXT;
