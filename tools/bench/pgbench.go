package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
)

// benchPgbench measures what PostgreSQL itself does with single-row inserts
// of a job-sized record at the same concurrency: one transaction per row,
// the way a venue without group commit would write its records.
func benchPgbench(ctx context.Context, o options) (result, error) {
	schema, drop, err := newSchema(ctx, o.postgres)
	if err != nil {
		return result{}, err
	}
	defer drop()
	db, err := sql.Open("postgres", o.postgres)
	if err != nil {
		return result{}, err
	}
	defer db.Close()
	table := schema + ".jobs"
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+table+" (id bigserial PRIMARY KEY, owner text NOT NULL, status text NOT NULL, record text NOT NULL)"); err != nil {
		return result{}, err
	}
	script, err := os.CreateTemp("", "pgbench-*.sql")
	if err != nil {
		return result{}, err
	}
	defer os.Remove(script.Name())
	fmt.Fprintf(script, "INSERT INTO %s (owner, status, record) VALUES ('did:key:bench', 'COMPLETE', '%s');\n", table, bareRecord)
	script.Close()
	secs := int(o.duration.Seconds())
	cmd := exec.CommandContext(ctx, "pgbench", "-n", "-c", strconv.Itoa(o.clients), "-j", strconv.Itoa(maxProcs()),
		"-T", strconv.Itoa(secs), "-f", script.Name(), pgURI(o.postgres))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("pgbench: %w\n%s", err, out.String())
	}
	m := regexp.MustCompile(`tps = ([0-9.]+)`).FindStringSubmatch(out.String())
	if m == nil {
		return result{}, fmt.Errorf("pgbench printed no tps:\n%s", out.String())
	}
	tps, _ := strconv.ParseFloat(m[1], 64)
	lat := regexp.MustCompile(`latency average = ([0-9.]+) ms`).FindStringSubmatch(out.String())
	note := ""
	if lat != nil {
		note = "average latency " + lat[1] + " ms"
	}
	return result{name: "(p) pgbench, single-row inserts", requests: int(tps * o.duration.Seconds()), rate: tps, note: note}, nil
}

// pgURI drops the lib/pq-only parameters libpq would refuse.
func pgURI(dsn string) string {
	return regexp.MustCompile(`[?&]search_path=[^&]*`).ReplaceAllString(dsn, "")
}
