-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Purchase" (
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
    "creditsCollected" INTEGER NOT NULL DEFAULT 0,
    "disputeId" TEXT,
    "disputeStatus" TEXT,
    "disputeClawedBack" INTEGER NOT NULL DEFAULT 0,
    "disputeOwed" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL
);
INSERT INTO "new_Purchase" ("amountRefunded", "amountTotal", "checkoutSessionId", "createdAt", "credits", "creditsClawedBack", "creditsOwed", "currency", "ownerId", "packId", "paymentIntentId", "status", "updatedAt") SELECT "amountRefunded", "amountTotal", "checkoutSessionId", "createdAt", "credits", "creditsClawedBack", "creditsOwed", "currency", "ownerId", "packId", "paymentIntentId", "status", "updatedAt" FROM "Purchase";
DROP TABLE "Purchase";
ALTER TABLE "new_Purchase" RENAME TO "Purchase";
CREATE UNIQUE INDEX "Purchase_paymentIntentId_key" ON "Purchase"("paymentIntentId");
CREATE INDEX "Purchase_ownerId_createdAt_idx" ON "Purchase"("ownerId", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
