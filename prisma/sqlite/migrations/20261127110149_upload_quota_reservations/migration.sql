-- AlterTable
ALTER TABLE "Upload" ADD COLUMN "clientKey" TEXT;

-- CreateTable
CREATE TABLE "UploadReservation" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "ownerId" TEXT NOT NULL,
    "clientKey" TEXT,
    "bytes" INTEGER NOT NULL,
    "expiresAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "UploadLock" (
    "scope" TEXT NOT NULL PRIMARY KEY,
    "lockedAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "UploadReservation_ownerId_idx" ON "UploadReservation"("ownerId");

-- CreateIndex
CREATE INDEX "UploadReservation_clientKey_idx" ON "UploadReservation"("clientKey");

-- CreateIndex
CREATE INDEX "UploadReservation_expiresAt_idx" ON "UploadReservation"("expiresAt");

-- CreateIndex
CREATE INDEX "Upload_clientKey_idx" ON "Upload"("clientKey");
