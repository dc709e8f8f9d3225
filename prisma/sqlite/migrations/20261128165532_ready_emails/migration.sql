-- CreateTable
CREATE TABLE "EmailSettings" (
    "userId" TEXT NOT NULL PRIMARY KEY,
    "readyEmails" BOOLEAN NOT NULL DEFAULT false,
    "unsubscribedAt" DATETIME,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "EmailSettings_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "ReadyEmail" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "generationId" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'PENDING',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextRunAt" DATETIME NOT NULL,
    "leaseUntil" DATETIME,
    "giveUpAt" DATETIME NOT NULL,
    "lastError" TEXT,
    "createdAt" DATETIME NOT NULL,
    "sentAt" DATETIME,
    CONSTRAINT "ReadyEmail_generationId_fkey" FOREIGN KEY ("generationId") REFERENCES "Generation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DevMail" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "to" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "linkLabel" TEXT NOT NULL DEFAULT 'Open the sign-in link',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO "new_DevMail" ("createdAt", "id", "subject", "text", "to", "url") SELECT "createdAt", "id", "subject", "text", "to", "url" FROM "DevMail";
DROP TABLE "DevMail";
ALTER TABLE "new_DevMail" RENAME TO "DevMail";
CREATE INDEX "DevMail_createdAt_idx" ON "DevMail"("createdAt");
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
    "emailWhenReady" BOOLEAN NOT NULL DEFAULT false
);
INSERT INTO "new_Generation" ("callbackEnabled", "clientKey", "completedAt", "costEstimate", "createdAt", "creditsConsumed", "deletedAt", "errorCode", "errorMessage", "gatewayMetadata", "id", "idempotencyKey", "input", "lastHeardAt", "model", "notFoundSince", "ownerId", "pollFailures", "pollLeaseUntil", "pollNotFound", "prompt", "promptSearch", "requestHash", "resultUrls", "resultUrlsDropped", "shareKey", "shareSeed", "shareShowsPrompt", "sharedAt", "state", "taskId", "traceContext", "updatedAt") SELECT "callbackEnabled", "clientKey", "completedAt", "costEstimate", "createdAt", "creditsConsumed", "deletedAt", "errorCode", "errorMessage", "gatewayMetadata", "id", "idempotencyKey", "input", "lastHeardAt", "model", "notFoundSince", "ownerId", "pollFailures", "pollLeaseUntil", "pollNotFound", "prompt", "promptSearch", "requestHash", "resultUrls", "resultUrlsDropped", "shareKey", "shareSeed", "shareShowsPrompt", "sharedAt", "state", "taskId", "traceContext", "updatedAt" FROM "Generation";
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
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "ReadyEmail_state_nextRunAt_idx" ON "ReadyEmail"("state", "nextRunAt");

-- CreateIndex
CREATE UNIQUE INDEX "ReadyEmail_generationId_outcome_key" ON "ReadyEmail"("generationId", "outcome");
