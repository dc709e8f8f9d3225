-- AlterTable: a comparison's public link, as a generation's (columns added in place: the Batch table keeps its rows and the generations that point at it)
ALTER TABLE "Batch" ADD COLUMN "shareKey" TEXT;
ALTER TABLE "Batch" ADD COLUMN "shareSeed" TEXT;
ALTER TABLE "Batch" ADD COLUMN "sharedAt" DATETIME;
ALTER TABLE "Batch" ADD COLUMN "shareShowsPrompt" BOOLEAN NOT NULL DEFAULT true;

-- CreateIndex
CREATE UNIQUE INDEX "Batch_shareKey_key" ON "Batch"("shareKey");
