package sql

import (
	"context"
	dbsql "database/sql"
	"errors"
	"sync"
)

// reads caches the prepared statements of the hot reads (a job by id, the
// values related to a path) by query text. Unprepared, every call parses
// its SQL again: on SQLite that was about a third of the CPU of a cheap
// job read. The texts are few (relatedValues varies only with a path's
// depth), and database/sql prepares a cached statement again on any pooled
// connection that has not seen it.
type reads struct {
	mu     sync.Mutex
	stmts  map[string]*dbsql.Stmt
	closed bool
}

// prepared returns the statement for q on the read pool, preparing it on
// first use.
func (s *Store) prepared(ctx context.Context, q string) (*dbsql.Stmt, error) {
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	if s.reads.closed {
		return nil, errors.New("the store is closed")
	}
	if st, ok := s.reads.stmts[q]; ok {
		return st, nil
	}
	st, err := s.r.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if s.reads.stmts == nil {
		s.reads.stmts = map[string]*dbsql.Stmt{}
	}
	s.reads.stmts[q] = st
	return st, nil
}

func (s *Store) closeReads() error {
	s.reads.mu.Lock()
	defer s.reads.mu.Unlock()
	s.reads.closed = true
	var errs []error
	for _, st := range s.reads.stmts {
		errs = append(errs, st.Close())
	}
	return errors.Join(errs...)
}
