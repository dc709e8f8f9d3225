-- CreateEnum
CREATE TYPE "MediaCopyState" AS ENUM ('PENDING', 'COPYING', 'DONE', 'FAILED', 'DELETING', 'DELETED');

-- CreateTable
CREATE TABLE "MediaCopy" (
    "id" TEXT NOT NULL,
    "generationId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "state" "MediaCopyState" NOT NULL DEFAULT 'PENDING',
    "storageKey" TEXT NOT NULL,
    "contentType" TEXT,
    "size" INTEGER,
    "sha256" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextRunAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "completedAt" TIMESTAMP(3),

    CONSTRAINT "MediaCopy_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "MediaCopy_state_nextRunAt_idx" ON "MediaCopy"("state", "nextRunAt");

-- CreateIndex
CREATE INDEX "MediaCopy_state_completedAt_idx" ON "MediaCopy"("state", "completedAt");

-- CreateIndex
CREATE UNIQUE INDEX "MediaCopy_generationId_position_key" ON "MediaCopy"("generationId", "position");

-- AddForeignKey
ALTER TABLE "MediaCopy" ADD CONSTRAINT "MediaCopy_generationId_fkey" FOREIGN KEY ("generationId") REFERENCES "Generation"("id") ON DELETE CASCADE ON UPDATE CASCADE;
