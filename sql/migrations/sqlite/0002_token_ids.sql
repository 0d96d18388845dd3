-- One-time tokens the venue has accepted (their issuer and jti, hashed),
-- kept until they expire so that none is accepted twice.
CREATE TABLE token_ids (
    key     BLOB PRIMARY KEY,
    expires INTEGER NOT NULL  -- ms; after it the token is refused anyway
);
CREATE INDEX token_ids_expires ON token_ids (expires);
