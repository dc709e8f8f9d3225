-- CreateTable
CREATE TABLE "CreditEntry" (
    "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "ownerId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "generationId" TEXT,
    "settles" TEXT,
    "checkoutSessionId" TEXT,
    "note" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "CreditLock" (
    "ownerId" TEXT NOT NULL PRIMARY KEY,
    "lockedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "Purchase" (
    "checkoutSessionId" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "packId" TEXT NOT NULL,
    "credits" INTEGER NOT NULL,
    "amountTotal" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "paymentIntentId" TEXT,
    "status" TEXT NOT NULL DEFAULT 'PAID',
    "amountRefunded" INTEGER NOT NULL DEFAULT 0,
    "creditsClawedBack" INTEGER NOT NULL DEFAULT 0,
    "creditsOwed" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "PendingRefund" (
    "paymentIntentId" TEXT NOT NULL PRIMARY KEY,
    "amountRefunded" INTEGER NOT NULL,
    "receivedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE UNIQUE INDEX "CreditEntry_idempotencyKey_key" ON "CreditEntry"("idempotencyKey");

-- CreateIndex
CREATE UNIQUE INDEX "CreditEntry_settles_key" ON "CreditEntry"("settles");

-- CreateIndex
CREATE INDEX "CreditEntry_ownerId_createdAt_idx" ON "CreditEntry"("ownerId", "createdAt");

-- CreateIndex
CREATE INDEX "CreditEntry_generationId_idx" ON "CreditEntry"("generationId");

-- CreateIndex
CREATE UNIQUE INDEX "Purchase_paymentIntentId_key" ON "Purchase"("paymentIntentId");

-- CreateIndex
CREATE INDEX "Purchase_ownerId_createdAt_idx" ON "Purchase"("ownerId", "createdAt");
