-- Sign-in compares user e-mails exactly with the address trimmed and lowercased, so stored
-- addresses take that form. Where two users of one workspace would collide, only the older is
-- rewritten; the other keeps its spelling and cannot sign in until it is renamed.
UPDATE "users" AS u
SET "email" = lower(btrim(u."email"))
FROM (
  SELECT "id", row_number() OVER (PARTITION BY "workspace_id", lower(btrim("email")) ORDER BY "created_at", "id") AS n
  FROM "users"
  WHERE "email" <> lower(btrim("email"))
) AS pending
WHERE u."id" = pending."id"
  AND pending.n = 1
  AND NOT EXISTS (
    SELECT 1 FROM "users" AS o WHERE o."workspace_id" = u."workspace_id" AND o."email" = lower(btrim(u."email"))
  );
