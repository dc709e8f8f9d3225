-- CreateTable
CREATE TABLE "Generation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "taskId" TEXT,
    "model" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'SUBMITTING',
    "prompt" TEXT NOT NULL,
    "input" TEXT NOT NULL DEFAULT '{}',
    "gatewayMetadata" TEXT,
    "resultUrls" TEXT NOT NULL DEFAULT '[]',
    "creditsConsumed" REAL,
    "errorCode" TEXT,
    "errorMessage" TEXT,
    "idempotencyKey" TEXT,
    "callbackEnabled" BOOLEAN NOT NULL DEFAULT true,
    "lastHeardAt" DATETIME,
    "pollLeaseUntil" DATETIME,
    "pollFailures" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "completedAt" DATETIME
);

-- CreateTable
CREATE TABLE "Delivery" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "generationId" TEXT,
    "taskId" TEXT,
    "source" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "reportedState" TEXT,
    "detail" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "Delivery_generationId_fkey" FOREIGN KEY ("generationId") REFERENCES "Generation" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE UNIQUE INDEX "Generation_taskId_key" ON "Generation"("taskId");

-- CreateIndex
CREATE UNIQUE INDEX "Generation_idempotencyKey_key" ON "Generation"("idempotencyKey");

-- CreateIndex
CREATE INDEX "Generation_createdAt_id_idx" ON "Generation"("createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Generation_state_pollLeaseUntil_idx" ON "Generation"("state", "pollLeaseUntil");

-- CreateIndex
CREATE INDEX "Generation_model_createdAt_idx" ON "Generation"("model", "createdAt" DESC);

-- CreateIndex
CREATE INDEX "Delivery_generationId_createdAt_idx" ON "Delivery"("generationId", "createdAt");

-- CreateIndex
CREATE INDEX "Delivery_createdAt_idx" ON "Delivery"("createdAt");

