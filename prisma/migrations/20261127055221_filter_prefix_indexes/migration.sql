-- Hand-written (Prisma's schema cannot state a B-tree operator class): prefixes in filters
-- (email / domain starts_with) are LIKE 'abc%', which a B-tree serves only with pattern operators
-- unless the database's collation is C. Their names end in _prefix_idx, which the drift check
-- (src/db/migrate.ts) leaves out.
-- CreateIndex
CREATE INDEX "companies_workspace_id_domain_prefix_idx" ON "companies"("workspace_id", "domain" text_pattern_ops);

-- CreateIndex
CREATE INDEX "contacts_workspace_id_email_prefix_idx" ON "contacts"("workspace_id", "email" text_pattern_ops);
