-- Owners (#15): every generation belongs to a viewer; a lock row per owner for the spending cap.
-- Every row from before owners belongs to "legacy" (visible in /admin, and to
-- everyone with GALLERY_SCOPE=shared once finished); its idempotency key is
-- scoped like the new ones ("<owner>:<key>"). In-flight rows from before keep
-- an estimate of 0: no owner's cap counts them.
-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "costEstimate" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "ownerId" TEXT NOT NULL DEFAULT 'legacy';
UPDATE "Generation" SET "idempotencyKey" = 'legacy:' || "idempotencyKey" WHERE "idempotencyKey" IS NOT NULL;
-- New rows always name their owner (the models have no default).
ALTER TABLE "Generation" ALTER COLUMN "ownerId" DROP DEFAULT;

-- CreateTable
CREATE TABLE "SpendLock" (
    "ownerId" TEXT NOT NULL,
    "lockedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SpendLock_pkey" PRIMARY KEY ("ownerId")
);

-- CreateIndex
CREATE INDEX "Generation_ownerId_createdAt_id_idx" ON "Generation"("ownerId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Generation_ownerId_state_completedAt_idx" ON "Generation"("ownerId", "state", "completedAt");
