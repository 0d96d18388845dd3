-- The bytes of lattice values each owner stores (paths and values), kept by
-- triggers so that every write of lattice_values counts, whatever statement
-- makes it. The store refuses a write that would take an owner past the
-- venue's limit (Options.MaxUserValuesBytes).
CREATE TABLE values_usage (
    owner TEXT PRIMARY KEY,
    bytes INTEGER NOT NULL
);
INSERT INTO values_usage (owner, bytes)
    SELECT owner, SUM(octet_length(path) + octet_length(value)) FROM lattice_values GROUP BY owner;

-- An upsert that updates fires the UPDATE trigger only.
CREATE TRIGGER values_usage_insert AFTER INSERT ON lattice_values BEGIN
    INSERT INTO values_usage (owner, bytes) VALUES (NEW.owner, octet_length(NEW.path) + octet_length(NEW.value))
        ON CONFLICT (owner) DO UPDATE SET bytes = bytes + excluded.bytes;
END;
CREATE TRIGGER values_usage_update AFTER UPDATE ON lattice_values BEGIN
    UPDATE values_usage SET bytes = bytes - octet_length(OLD.path) - octet_length(OLD.value) WHERE owner = OLD.owner;
    INSERT INTO values_usage (owner, bytes) VALUES (NEW.owner, octet_length(NEW.path) + octet_length(NEW.value))
        ON CONFLICT (owner) DO UPDATE SET bytes = bytes + excluded.bytes;
END;
CREATE TRIGGER values_usage_delete AFTER DELETE ON lattice_values BEGIN
    UPDATE values_usage SET bytes = bytes - octet_length(OLD.path) - octet_length(OLD.value) WHERE owner = OLD.owner;
END;
