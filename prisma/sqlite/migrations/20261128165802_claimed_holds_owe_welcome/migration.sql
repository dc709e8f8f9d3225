-- AlterTable
ALTER TABLE "Generation" ADD COLUMN "claimedFrom" TEXT;

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_GuestClaim" (
    "guestId" TEXT NOT NULL PRIMARY KEY,
    "userId" TEXT NOT NULL,
    "claimedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "generations" INTEGER NOT NULL,
    "uploads" INTEGER NOT NULL,
    "welcomeOwed" INTEGER NOT NULL DEFAULT 0,
    "heldBought" INTEGER NOT NULL DEFAULT 0,
    "heldReturned" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_GuestClaim" ("claimedAt", "generations", "guestId", "uploads", "userId") SELECT "claimedAt", "generations", "guestId", "uploads", "userId" FROM "GuestClaim";
DROP TABLE "GuestClaim";
ALTER TABLE "new_GuestClaim" RENAME TO "GuestClaim";
CREATE INDEX "GuestClaim_userId_idx" ON "GuestClaim"("userId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;
