-- The bytes of lattice values each owner stores (paths and values), kept by
-- a trigger so that every write of lattice_values counts, whatever statement
-- makes it. The store refuses a write that would take an owner past the
-- venue's limit (Options.MaxUserValuesBytes). An upsert that updates fires
-- the UPDATE case only.
CREATE TABLE values_usage (
    owner TEXT PRIMARY KEY,
    bytes BIGINT NOT NULL
);
INSERT INTO values_usage (owner, bytes)
    SELECT owner, SUM(octet_length(path) + octet_length(value)) FROM lattice_values GROUP BY owner;

CREATE FUNCTION values_usage_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        UPDATE values_usage SET bytes = bytes - octet_length(OLD.path) - octet_length(OLD.value) WHERE owner = OLD.owner;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO values_usage (owner, bytes) VALUES (NEW.owner, octet_length(NEW.path) + octet_length(NEW.value))
            ON CONFLICT (owner) DO UPDATE SET bytes = values_usage.bytes + excluded.bytes;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER values_usage_count AFTER INSERT OR UPDATE OR DELETE ON lattice_values
    FOR EACH ROW EXECUTE FUNCTION values_usage_count();
