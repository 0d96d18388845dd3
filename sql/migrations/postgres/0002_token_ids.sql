-- One-time tokens the venue has accepted (their issuer and jti, hashed),
-- kept until they expire so that none is accepted twice, on any node.
CREATE TABLE token_ids (
    key     bytea PRIMARY KEY,
    expires bigint NOT NULL  -- ms; after it the token is refused anyway
);
CREATE INDEX token_ids_expires ON token_ids (expires);
