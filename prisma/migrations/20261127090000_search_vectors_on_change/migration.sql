-- Hand-written: the search vectors are recomputed on an update only when a column they are made
-- of changed. Most updates (a status, a job title, an owner) leave them as they were, and the five
-- to_tsvector calls were most of the cost of a batch's UPDATE of 1,000 contacts.
DROP TRIGGER contacts_search_vector_update ON "contacts";
CREATE TRIGGER contacts_search_vector_insert
    BEFORE INSERT ON "contacts"
    FOR EACH ROW EXECUTE FUNCTION contacts_search_vector_update();
CREATE TRIGGER contacts_search_vector_update
    BEFORE UPDATE ON "contacts"
    FOR EACH ROW
    WHEN (OLD.first_name IS DISTINCT FROM NEW.first_name OR OLD.last_name IS DISTINCT FROM NEW.last_name
        OR OLD.email IS DISTINCT FROM NEW.email OR OLD.company IS DISTINCT FROM NEW.company
        OR OLD.custom_fields IS DISTINCT FROM NEW.custom_fields OR NEW.search_vector IS NULL)
    EXECUTE FUNCTION contacts_search_vector_update();

DROP TRIGGER companies_search_vector_update ON "companies";
CREATE TRIGGER companies_search_vector_insert
    BEFORE INSERT ON "companies"
    FOR EACH ROW EXECUTE FUNCTION companies_search_vector_update();
CREATE TRIGGER companies_search_vector_update
    BEFORE UPDATE ON "companies"
    FOR EACH ROW
    WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.domain IS DISTINCT FROM NEW.domain
        OR OLD.industry IS DISTINCT FROM NEW.industry OR OLD.custom_fields IS DISTINCT FROM NEW.custom_fields
        OR NEW.search_vector IS NULL)
    EXECUTE FUNCTION companies_search_vector_update();
