-- The venue's schema on Postgres. Ids are bytea (16 bytes for jobs, 32 for
-- hashes); JSON documents are bytea so they come back byte for byte (jsonb
-- would reformat them); times are milliseconds since the epoch. Text keys
-- use the "C" collation: bytewise order, the same as SQLite's and Go's, on
-- which the range queries on lattice paths and every "sorted" result rely.

CREATE TABLE jobs (
    id      bytea PRIMARY KEY,           -- venue.JobID; its first six bytes are a ms timestamp
    owner   text COLLATE "C" NOT NULL,   -- the caller DID
    status  text NOT NULL,
    version bigint NOT NULL,             -- 1 for a new job, +1 per transition
    created bigint NOT NULL,
    updated bigint NOT NULL,
    record  bytea NOT NULL               -- the job's JSON, as written
) WITH (fillfactor = 80);                -- room for HOT updates: a job is rewritten per transition
CREATE INDEX jobs_owner_id ON jobs (owner, id);

CREATE TABLE job_messages (
    seq    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    job_id bytea NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    body   bytea NOT NULL
);
CREATE INDEX job_messages_job_seq ON job_messages (job_id, seq);

CREATE TABLE assets (
    id      bytea PRIMARY KEY,           -- SHA-256 of the canonical metadata
    owner   text COLLATE "C" NOT NULL,
    meta    bytea NOT NULL,              -- as registered, byte for byte
    created bigint NOT NULL
);

-- Content is stored in chunks under the random id of the upload that wrote
-- them. An upload is staged while content_uploads holds its id; Commit
-- publishes it by adding a content row and dropping that marker, so no
-- chunk is ever copied.
CREATE TABLE content_uploads (
    id      bytea PRIMARY KEY,
    created bigint NOT NULL
);
CREATE TABLE content_chunks (
    upload_id bytea NOT NULL,
    n         integer NOT NULL,          -- 0, 1, 2, ...
    data      bytea NOT NULL,
    PRIMARY KEY (upload_id, n)
);
CREATE TABLE content (
    sha256    bytea PRIMARY KEY,
    upload_id bytea NOT NULL,
    size      bigint NOT NULL,
    created   bigint NOT NULL
);

CREATE TABLE secrets (
    owner   text COLLATE "C" NOT NULL,
    name    text COLLATE "C" NOT NULL,
    sealed  bytea NOT NULL,              -- ciphertext; the store never sees plaintext
    updated bigint NOT NULL,
    PRIMARY KEY (owner, name)
);

-- Lattice values, one row per stored path. Rows below p are found with
-- path > p||'/' AND path < p||'0' ('0' follows '/' in ASCII), which the
-- primary key serves under the "C" collation.
CREATE TABLE lattice_values (
    owner text COLLATE "C" NOT NULL,
    path  text COLLATE "C" NOT NULL,
    value bytea NOT NULL,
    PRIMARY KEY (owner, path)
);

CREATE TABLE meta (
    key   text COLLATE "C" PRIMARY KEY,
    value bytea NOT NULL
);

CREATE TABLE users (
    did     text COLLATE "C" PRIMARY KEY,
    created bigint NOT NULL
);
