-- AlterTable
ALTER TABLE "Upload" ADD COLUMN     "clientKey" TEXT;

-- CreateTable
CREATE TABLE "UploadReservation" (
    "id" TEXT NOT NULL,
    "ownerId" TEXT NOT NULL,
    "clientKey" TEXT,
    "bytes" INTEGER NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UploadReservation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "UploadLock" (
    "scope" TEXT NOT NULL,
    "lockedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "UploadLock_pkey" PRIMARY KEY ("scope")
);

-- CreateIndex
CREATE INDEX "UploadReservation_ownerId_idx" ON "UploadReservation"("ownerId");

-- CreateIndex
CREATE INDEX "UploadReservation_clientKey_idx" ON "UploadReservation"("clientKey");

-- CreateIndex
CREATE INDEX "UploadReservation_expiresAt_idx" ON "UploadReservation"("expiresAt");

-- CreateIndex
CREATE INDEX "Upload_clientKey_idx" ON "Upload"("clientKey");
