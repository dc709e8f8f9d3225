-- CreateTable
CREATE TABLE "Batch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    "pickId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Generation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT,
    "model" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'SUBMITTING',
    "prompt" TEXT NOT NULL,
    "input" TEXT NOT NULL DEFAULT '{}',
    "gatewayMetadata" TEXT,
    "resultUrls" TEXT NOT NULL DEFAULT '[]',
    "resultUrlsDropped" INTEGER NOT NULL DEFAULT 0,
    "creditsConsumed" REAL,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "ownerId" TEXT NOT NULL,
    "costEstimate" REAL NOT NULL DEFAULT 0,
    "clientKey" TEXT,
    "idempotencyKey" TEXT,
    "requestHash" TEXT,
    "callbackEnabled" BOOLEAN NOT NULL DEFAULT true,
    "lastHeardAt" DATETIME,
    "pollLeaseUntil" DATETIME,
    "pollFailures" INTEGER NOT NULL DEFAULT 0,
    "pollNotFound" INTEGER NOT NULL DEFAULT 0,
    "notFoundSince" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME,
    "deletedAt" DATETIME,
    "promptSearch" TEXT NOT NULL DEFAULT '',
    "shareKey" TEXT,
    "shareSeed" TEXT,
    "sharedAt" DATETIME,
    "shareShowsPrompt" BOOLEAN NOT NULL DEFAULT true,
    "traceContext" TEXT,
    "emailWhenReady" BOOLEAN NOT NULL DEFAULT false,
    "claimedFrom" TEXT,
    "batchId" TEXT,
    CONSTRAINT "Generation_batchId_fkey" FOREIGN KEY ("batchId") REFERENCES "Batch" ("id") ON DELETE SET NULL ON UPDATE CASCADE
);
INSERT INTO "new_Generation" ("callbackEnabled", "claimedFrom", "clientKey", "completedAt", "costEstimate", "createdAt", "creditsConsumed", "deletedAt", "emailWhenReady", "errorCode", "errorMessage", "gatewayMetadata", "id", "idempotencyKey", "input", "lastHeardAt", "model", "notFoundSince", "ownerId", "pollFailures", "pollLeaseUntil", "pollNotFound", "prompt", "promptSearch", "requestHash", "resultUrls", "resultUrlsDropped", "shareKey", "shareSeed", "shareShowsPrompt", "sharedAt", "state", "taskId", "traceContext", "updatedAt") SELECT "callbackEnabled", "claimedFrom", "clientKey", "completedAt", "costEstimate", "createdAt", "creditsConsumed", "deletedAt", "emailWhenReady", "errorCode", "errorMessage", "gatewayMetadata", "id", "idempotencyKey", "input", "lastHeardAt", "model", "notFoundSince", "ownerId", "pollFailures", "pollLeaseUntil", "pollNotFound", "prompt", "promptSearch", "requestHash", "resultUrls", "resultUrlsDropped", "shareKey", "shareSeed", "shareShowsPrompt", "sharedAt", "state", "taskId", "traceContext", "updatedAt" FROM "Generation";
DROP TABLE "Generation";
ALTER TABLE "new_Generation" RENAME TO "Generation";
CREATE UNIQUE INDEX "Generation_taskId_key" ON "Generation"("taskId");
CREATE UNIQUE INDEX "Generation_idempotencyKey_key" ON "Generation"("idempotencyKey");
CREATE UNIQUE INDEX "Generation_shareKey_key" ON "Generation"("shareKey");
CREATE INDEX "Generation_createdAt_id_idx" ON "Generation"("createdAt" DESC, "id" DESC);
CREATE INDEX "Generation_deletedAt_createdAt_id_idx" ON "Generation"("deletedAt", "createdAt" DESC, "id" DESC);
CREATE INDEX "Generation_state_createdAt_id_idx" ON "Generation"("state", "createdAt" DESC, "id" DESC);
CREATE INDEX "Generation_state_pollLeaseUntil_idx" ON "Generation"("state", "pollLeaseUntil");
CREATE INDEX "Generation_model_createdAt_idx" ON "Generation"("model", "createdAt" DESC);
CREATE INDEX "Generation_ownerId_createdAt_id_idx" ON "Generation"("ownerId", "createdAt" DESC, "id" DESC);
CREATE INDEX "Generation_ownerId_state_completedAt_idx" ON "Generation"("ownerId", "state", "completedAt");
CREATE INDEX "Generation_clientKey_state_completedAt_idx" ON "Generation"("clientKey", "state", "completedAt");
CREATE INDEX "Generation_state_completedAt_idx" ON "Generation"("state", "completedAt");
CREATE INDEX "Generation_batchId_idx" ON "Generation"("batchId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "Batch_idempotencyKey_key" ON "Batch"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Batch_ownerId_createdAt_idx" ON "Batch"("ownerId", "createdAt" DESC);
