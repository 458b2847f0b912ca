-- AlterTable
ALTER TABLE "activities" ADD COLUMN     "company_id" TEXT;

-- AlterTable
ALTER TABLE "notes" ADD COLUMN     "company_id" TEXT,
ALTER COLUMN "contact_id" DROP NOT NULL;

-- CreateIndex
CREATE INDEX "activities_company_id_occurred_at_idx" ON "activities"("company_id", "occurred_at");

-- CreateIndex
CREATE INDEX "notes_company_id_created_at_idx" ON "notes"("company_id", "created_at");

-- AddForeignKey
ALTER TABLE "notes" ADD CONSTRAINT "notes_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "activities" ADD CONSTRAINT "activities_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- Hand-written: a note belongs to exactly one contact or one company (Prisma cannot state a CHECK).
ALTER TABLE "notes" ADD CONSTRAINT "notes_one_owner_check" CHECK (("contact_id" IS NULL) <> ("company_id" IS NULL));
