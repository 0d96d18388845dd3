-- The bytes of assets each user stores: the metadata of the assets they
-- registered and the content they uploaded that was not stored before.
-- The store adds to it in the transaction that stores the bytes and
-- refuses what would take a user past the venue's limit
-- (Options.MaxUserAssetsBytes). Assets are never deleted, so it only grows.
-- Content uploaded before this table existed names no uploader and counts
-- to nobody.
CREATE TABLE assets_usage (
    owner TEXT PRIMARY KEY,
    bytes BIGINT NOT NULL
);
INSERT INTO assets_usage (owner, bytes)
    SELECT owner, SUM(octet_length(meta)) FROM assets GROUP BY owner;
