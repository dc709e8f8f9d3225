-- CreateTable
CREATE TABLE "MediaCopy" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "generationId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "sourceUrl" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'PENDING',
    "storageKey" TEXT NOT NULL,
    "contentType" TEXT,
    "size" INTEGER,
    "sha256" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextRunAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "leaseUntil" DATETIME,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME,
    CONSTRAINT "MediaCopy_generationId_fkey" FOREIGN KEY ("generationId") REFERENCES "Generation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "MediaCopy_state_nextRunAt_idx" ON "MediaCopy"("state", "nextRunAt");

-- CreateIndex
CREATE INDEX "MediaCopy_state_completedAt_idx" ON "MediaCopy"("state", "completedAt");

-- CreateIndex
CREATE UNIQUE INDEX "MediaCopy_generationId_position_key" ON "MediaCopy"("generationId", "position");
