package rest

import (
	"context"
	"net/http"
	"strings"
	"time"

	venue "github.com/gridvenue/venue"
)

// Job records of a megabyte and more are answered within the venue's budget
// of held bodies (bodyBudget), as request bodies are read within it. A
// record may hold 16 MiB of input and more of output, and each reader held
// some four copies of it at once (the stored row, the record decoded from
// it, its JSON, the encoder's copy of that): an audit's 200 concurrent
// readers of one 16 MiB record took 6 to 9 GB. A large record waits its
// turn as a body does, up to bodyTimeout, then the request gets 503 with
// Retry-After.
const (
	bigRecord    = 1 << 20
	recordCopies = 3 // the record, its JSON, the encoder's copy
)

// recordCharge is a job request's account with the budget.
type recordCharge struct {
	c        bodyCharge
	w        http.ResponseWriter
	deadline bool // a write deadline was set for a charged answer
}

// minRecordRate is the slowest a charged record is written at: an answer
// the client does not read would otherwise hold its charge, and the first
// place in the budget's line, for as long as it keeps the connection open
// (a response has no write deadline), and every request body behind it
// would wait and be refused.
const minRecordRate = 1 << 20 // bytes a second

type recordChargeKey struct{}

// chargeRecords opens an account for each request on a job route, settled
// once its response is written (after the handler returns, for Huma's).
func (s *Server) chargeRecords(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v1/jobs/") {
			next.ServeHTTP(w, r)
			return
		}
		rc := &recordCharge{w: w}
		defer func() {
			s.bodies.release(&rc.c)
			if rc.deadline { // not inherited by the connection's next request
				_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
			}
		}()
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), recordChargeKey{}, rc)))
	})
}

// chargeable returns the request's account and j's size when j is large
// enough to be charged, nil when it is not (or the route keeps none).
func chargeable(ctx context.Context, j *venue.Job) (*recordCharge, int64) {
	rc, _ := ctx.Value(recordChargeKey{}).(*recordCharge)
	size := int64(j.SizeHint())
	if rc == nil || size < bigRecord {
		return nil, 0
	}
	return rc, size
}

// servable returns j to answer with, charged to the budget when it is
// large. With reread, the record is dropped while it waits and read again
// once its turn comes, so a waiting request holds none of it.
func (s *Server) servable(ctx context.Context, j *venue.Job, reread func() (*venue.Job, error)) (*venue.Job, error) {
	rc, size := chargeable(ctx, j)
	if rc == nil {
		return j, nil
	}
	if reread != nil {
		j = nil
	}
	if err := s.bodies.take(ctx, &rc.c, recordCopies*size, s.bodyTimeout); err != nil {
		return nil, err
	}
	dl := time.Now().Add(s.bodyTimeout + time.Duration(size)*time.Second/minRecordRate)
	if http.NewResponseController(rc.w).SetWriteDeadline(dl) == nil {
		rc.deadline = true
	}
	if reread != nil {
		return reread()
	}
	return j, nil
}

// eventCharge charges an event stream for one large record until
// sent is called, which gives it back and leaves the line to the next.
func (s *Server) eventCharge(ctx context.Context, j *venue.Job) (sent func(), err error) {
	rc, size := chargeable(ctx, j)
	if rc == nil {
		return func() {}, nil
	}
	if err := s.bodies.take(ctx, &rc.c, 2*size, s.bodyTimeout); err != nil {
		return nil, err
	}
	return func() {
		s.bodies.give(&rc.c, 2*size)
		s.bodies.read(&rc.c)
	}, nil
}
