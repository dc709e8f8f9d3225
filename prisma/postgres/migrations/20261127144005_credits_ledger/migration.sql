-- CreateEnum
CREATE TYPE "CreditEntryKind" AS ENUM ('GRANT', 'PURCHASE', 'HOLD', 'CAPTURE', 'RELEASE', 'REFUND', 'ADJUSTMENT');

-- CreateEnum
CREATE TYPE "PurchaseStatus" AS ENUM ('PAID', 'PARTIALLY_REFUNDED', 'REFUNDED');

-- CreateTable
CREATE TABLE "CreditEntry" (
    "id" SERIAL NOT NULL,
    "ownerId" TEXT NOT NULL,
    "kind" "CreditEntryKind" NOT NULL,
    "amount" INTEGER NOT NULL,
    "idempotencyKey" TEXT NOT NULL,
    "generationId" TEXT,
    "settles" TEXT,
    "checkoutSessionId" TEXT,
    "note" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CreditEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CreditLock" (
    "ownerId" TEXT NOT NULL,
    "lockedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "CreditLock_pkey" PRIMARY KEY ("ownerId")
);

-- CreateTable
CREATE TABLE "Purchase" (
    "checkoutSessionId" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "packId" TEXT NOT NULL,
    "credits" INTEGER NOT NULL,
    "amountTotal" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "paymentIntentId" TEXT,
    "status" "PurchaseStatus" NOT NULL DEFAULT 'PAID',
    "amountRefunded" INTEGER NOT NULL DEFAULT 0,
    "creditsClawedBack" INTEGER NOT NULL DEFAULT 0,
    "creditsOwed" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Purchase_pkey" PRIMARY KEY ("checkoutSessionId")
);

-- CreateTable
CREATE TABLE "PendingRefund" (
    "paymentIntentId" TEXT NOT NULL,
    "amountRefunded" INTEGER NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PendingRefund_pkey" PRIMARY KEY ("paymentIntentId")
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
