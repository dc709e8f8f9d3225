-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "deletedAt" TIMESTAMP(3),
ADD COLUMN     "promptSearch" TEXT NOT NULL DEFAULT '';

-- CreateIndex
CREATE INDEX "Generation_deletedAt_createdAt_id_idx" ON "Generation"("deletedAt", "createdAt" DESC, "id" DESC);

-- Backfill: rows created before search existed are found too.
UPDATE "Generation" SET "promptSearch" = lower("prompt");
