-- The address spending cap: who sent an anonymous submission (a keyed hash).
ALTER TABLE "Generation" ADD COLUMN "clientKey" TEXT;

-- Lock rows now name a scope ("owner:<id>", "address:<key>", "total"). They
-- hold no data (each capped submission writes its own first), so the old
-- ones are dropped rather than renamed.
DELETE FROM "SpendLock";
ALTER TABLE "SpendLock" RENAME COLUMN "ownerId" TO "scope";

-- CreateIndex
CREATE INDEX "Generation_clientKey_state_completedAt_idx" ON "Generation"("clientKey", "state", "completedAt");

-- CreateIndex
CREATE INDEX "Generation_state_completedAt_idx" ON "Generation"("state", "completedAt");
