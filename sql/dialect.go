package sql

import "github.com/jmoiron/sqlx"

// Dialect names, as Store.Dialect reports them.
const (
	DialectSQLite   = "sqlite"
	DialectPostgres = "postgres"
)

// dialect holds what differs between SQLite and Postgres. Every query is one
// SQL text written with ? placeholders; these hooks cover the rest.
type dialect struct {
	name string
	bind int // sqlx bind type: ? for SQLite, $n for Postgres

	// skipLocked lets concurrent takers of a job's messages each pop a
	// different one instead of queueing on the oldest and finding it gone.
	skipLocked string

	// forShare locks a job's row against a concurrent write of it while a
	// message is queued, so the job cannot end in between unseen.
	forShare string

	// all is the LIMIT argument that means "no limit".
	all any

	// flush is how many WriteJobs calls the engine should run at once.
	flush int
}

// sqliteDialect has one writer, so more concurrent flushes would only queue.
func sqliteDialect() dialect {
	return dialect{name: DialectSQLite, bind: sqlx.QUESTION, all: -1, flush: 1}
}

// postgresDialect: one flusher. The engine's writer gathers rows while
// jobs are executing, so one flush in flight carries large batches; more
// flushers won the store-only benchmark (BenchmarkWriteJobsParallel) but
// lost end to end (tools/bench: 13-15k jobs/s with one against 10-11k with
// two, venue and server sharing 2 cores): they split the same jobs into
// smaller batches, each paying a statement and a commit.
func postgresDialect() dialect {
	return dialect{name: DialectPostgres, bind: sqlx.DOLLAR, skipLocked: " FOR UPDATE SKIP LOCKED", forShare: " FOR SHARE", all: nil, flush: 1}
}

// q rewrites a query written with ? placeholders for this dialect.
func (d *dialect) q(query string) string {
	if d.bind == sqlx.QUESTION {
		return query
	}
	return sqlx.Rebind(d.bind, query)
}

func (d *dialect) postgres() bool { return d.name == DialectPostgres }

// limit returns the LIMIT argument for n, where n < 0 means all.
func (d *dialect) limit(n int) any {
	if n < 0 {
		return d.all
	}
	return n
}
