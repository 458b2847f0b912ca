-- DropIndex
DROP INDEX "contacts_workspace_id_assigned_to_idx";

-- DropIndex
DROP INDEX "contacts_workspace_id_status_idx";

-- CreateIndex
CREATE INDEX "contacts_workspace_id_status_created_at_id_idx" ON "contacts"("workspace_id", "status", "created_at", "id");

-- CreateIndex
CREATE INDEX "contacts_workspace_id_source_created_at_id_idx" ON "contacts"("workspace_id", "source", "created_at", "id");

-- CreateIndex
CREATE INDEX "contacts_workspace_id_assigned_to_created_at_id_idx" ON "contacts"("workspace_id", "assigned_to", "created_at", "id");

-- CreateIndex
CREATE INDEX "contacts_workspace_id_first_name_id_idx" ON "contacts"("workspace_id", "first_name", "id");

-- CreateIndex
CREATE INDEX "contacts_workspace_id_last_name_id_idx" ON "contacts"("workspace_id", "last_name", "id");

-- CreateIndex
CREATE INDEX "contacts_workspace_id_company_id_idx" ON "contacts"("workspace_id", "company", "id");
