-- The venue's schema on SQLite. Ids are raw bytes (16 for jobs, 32 for
-- hashes); JSON documents are BLOBs so they come back byte for byte; times
-- are milliseconds since the epoch. Text keys compare bytewise (BINARY),
-- which the range queries on lattice paths rely on.

CREATE TABLE jobs (
    id      BLOB PRIMARY KEY,  -- venue.JobID; its first six bytes are a ms timestamp
    owner   TEXT NOT NULL,     -- the caller DID
    status  TEXT NOT NULL,
    version INTEGER NOT NULL,  -- 1 for a new job, +1 per transition
    created INTEGER NOT NULL,
    updated INTEGER NOT NULL,
    record  BLOB NOT NULL      -- the job's JSON, as written
);
CREATE INDEX jobs_owner_id ON jobs (owner, id);
-- The jobs a restarted venue must fail: few, however many jobs there are.
CREATE INDEX jobs_unfinished ON jobs (id)
    WHERE status NOT IN ('COMPLETE', 'FAILED', 'CANCELLED', 'REJECTED');

-- Messages queued for a job; seq orders them (the rowid: new rows always
-- get more than the largest present, so FIFO holds without AUTOINCREMENT).
CREATE TABLE job_messages (
    seq    INTEGER PRIMARY KEY,
    job_id BLOB NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
    body   BLOB NOT NULL
);
CREATE INDEX job_messages_job_seq ON job_messages (job_id, seq);

CREATE TABLE assets (
    id      BLOB PRIMARY KEY,  -- SHA-256 of the canonical metadata
    owner   TEXT NOT NULL,
    meta    BLOB NOT NULL,     -- as registered, byte for byte
    created INTEGER NOT NULL
);

-- Content is stored in chunks under the random id of the upload that wrote
-- them. An upload is staged while content_uploads holds its id; Commit
-- publishes it by adding a content row and dropping that marker, so no
-- chunk is ever copied.
CREATE TABLE content_uploads (
    id      BLOB PRIMARY KEY,
    created INTEGER NOT NULL
);
CREATE TABLE content_chunks (
    upload_id BLOB NOT NULL,
    n         INTEGER NOT NULL,  -- 0, 1, 2, ...
    data      BLOB NOT NULL,
    PRIMARY KEY (upload_id, n)
);
CREATE TABLE content (
    sha256    BLOB PRIMARY KEY,
    upload_id BLOB NOT NULL,
    size      INTEGER NOT NULL,
    created   INTEGER NOT NULL
);

CREATE TABLE secrets (
    owner   TEXT NOT NULL,
    name    TEXT NOT NULL,
    sealed  BLOB NOT NULL,  -- ciphertext; the store never sees plaintext
    updated INTEGER NOT NULL,
    PRIMARY KEY (owner, name)
);

-- Lattice values, one row per stored path. Rows below p are found with
-- path > p||'/' AND path < p||'0' ('0' follows '/' in ASCII), which the
-- primary key serves.
CREATE TABLE lattice_values (
    owner TEXT NOT NULL,
    path  TEXT NOT NULL,
    value BLOB NOT NULL,
    PRIMARY KEY (owner, path)
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

CREATE TABLE users (
    did     TEXT PRIMARY KEY,
    created INTEGER NOT NULL
);
