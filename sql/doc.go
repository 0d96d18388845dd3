// Package sql is the venue's one store: runtime.Store (and runtime.Notifier)
// over SQLite (modernc.org/sqlite, pure Go) and Postgres (lib/pq), through
// sqlx with one SQL text per query where the dialects agree and small hooks
// where they do not (see dialect.go).
//
// Open picks the engine from the DSN: "" is an ephemeral SQLite file in a
// temporary directory that Close removes, a postgres:// URL (or key=value
// DSN) is a shared Postgres that several venue processes may use at once,
// and anything else is a durable SQLite file.
//
// Job writes are the hot path of the venue: WriteJobs is one transaction per
// call with a cached multi-row upsert, so the engine can group-commit many
// job transitions into one durable write. On Postgres the same transaction
// publishes the applied rows with NOTIFY so every node sees every change.
//
// The schema lives in migrations/<dialect>/NNNN_name.sql, embedded and
// applied by Open; storetest holds the one suite every store must pass.
package sql
