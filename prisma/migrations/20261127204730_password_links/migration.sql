-- CreateTable
CREATE TABLE "password_links" (
    "id" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "password_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "password_links_token_hash_key" ON "password_links"("token_hash");

-- CreateIndex
CREATE INDEX "password_links_user_id_idx" ON "password_links"("user_id");

-- AddForeignKey
ALTER TABLE "password_links" ADD CONSTRAINT "password_links_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
