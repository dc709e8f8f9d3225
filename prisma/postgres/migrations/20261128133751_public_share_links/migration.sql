-- AlterTable
ALTER TABLE "Generation" ADD COLUMN     "shareKey" TEXT,
ADD COLUMN     "shareSeed" TEXT,
ADD COLUMN     "shareShowsPrompt" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "sharedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "MediaCopy" ADD COLUMN     "height" INTEGER,
ADD COLUMN     "width" INTEGER;

-- CreateIndex
CREATE UNIQUE INDEX "Generation_shareKey_key" ON "Generation"("shareKey");
