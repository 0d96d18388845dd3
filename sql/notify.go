package sql

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	venue "github.com/gridvenue/venue"
	"github.com/gridvenue/venue/runtime"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// notifyPrefix starts the name of the Postgres channel job notes travel on.
// NOTIFY is database-wide, so the name ends with a hash of the schema:
// venues in two schemas of one database do not hear each other.
const notifyPrefix = "venue_jobs_"

// channelFor names the notify channel of a schema.
func channelFor(schema string) string {
	sum := sha256.Sum256([]byte(schema))
	return notifyPrefix + hex.EncodeToString(sum[:8])
}

// maxPayload keeps each NOTIFY below Postgres's 8000-byte payload limit.
const maxPayload = 7900

// listenerPing is how often a listener checks its connection: a peer that
// vanished without closing TCP would otherwise go unnoticed.
const listenerPing = 90 * time.Second

// notePayload is one NOTIFY: the publishing node and a batch of notes.
type notePayload struct {
	Node  string     `json:"node"`
	Notes []noteWire `json:"notes,omitempty"`
	Hello bool       `json:"hello,omitempty"` // a node announces itself (see peers.go)
	Bye   bool       `json:"bye,omitempty"`   // a node is closing
}

// noteWire is runtime.JobNote on the wire.
type noteWire struct {
	Kind    string          `json:"kind"`
	ID      venue.JobID     `json:"id"`
	Status  venue.JobStatus `json:"status,omitempty"`
	Version int64           `json:"version,omitempty"`
}

// notify publishes notes inside tx, so they go out when it commits and
// never for a write that rolled back. All payloads go in one statement.
func (s *Store) notify(ctx context.Context, tx *sqlx.Tx, notes []runtime.JobNote) error {
	if len(notes) == 0 {
		return nil
	}
	q := "SELECT pg_notify('" + s.channel + "', p) FROM unnest($1::text[]) AS p"
	_, err := tx.ExecContext(ctx, q, pq.StringArray(s.payloads(notes)))
	return err
}

// payloads packs notes into as few payloads under maxPayload as it can.
func (s *Store) payloads(notes []runtime.JobNote) []string {
	node, _ := json.Marshal(s.node)
	head := append(append([]byte(`{"node":`), node...), `,"notes":[`...)
	var out []string
	buf := append([]byte(nil), head...)
	for _, n := range notes {
		b, _ := json.Marshal(noteWire(n))
		if len(buf) > len(head) && len(buf)+1+len(b)+2 > maxPayload {
			out = append(out, string(append(buf, "]}"...)))
			buf = append(buf[:0], head...)
		}
		if len(buf) > len(head) {
			buf = append(buf, ',')
		}
		buf = append(buf, b...)
	}
	return append(out, string(append(buf, "]}"...)))
}

// ListenJobs calls fn with every note another node publishes, until ctx is
// done or the store closes. It returns once the listener is subscribed, so
// every note committed after it returns reaches fn (unless the connection
// drops; pq.Listener reconnects and the gap is logged). On SQLite, which one
// process owns, it returns nil and never calls fn.
func (s *Store) ListenJobs(ctx context.Context, fn func(runtime.JobNote)) error {
	if !s.d.postgres() {
		return nil
	}
	l := pq.NewListener(s.dsn, 100*time.Millisecond, 10*time.Second, s.listenerEvent)
	if err := s.subscribe(ctx, l); err != nil {
		return wrap(ctx, err, "listen for job notes")
	}
	if !s.track() {
		return errors.Join(errors.New("listen for job notes: store closed"), l.Close())
	}
	if err := s.announce(ctx, false); err != nil {
		s.log.Warn("announce this node", "err", err)
	}
	go s.relay(ctx, l, fn)
	return nil
}

// subscribe waits for LISTEN to take effect: pq blocks until it connects,
// which may be never, so ctx and Close bound the wait. It closes l if it
// fails.
func (s *Store) subscribe(ctx context.Context, l *pq.Listener) error {
	errc := make(chan error, 1)
	go func() { errc <- l.Listen(s.channel) }()
	select {
	case err := <-errc:
		if err != nil {
			l.Close()
		}
		return err
	case <-ctx.Done():
		l.Close()
		<-errc
		return ctx.Err()
	case <-s.done:
		l.Close()
		<-errc
		return errors.New("store closed")
	}
}

// relay delivers notes until ctx is done or the store closes. It also
// drops, every staleSweep, the staging that uploads of nodes that died
// left: Open does too, but a lone node may run for months.
func (s *Store) relay(ctx context.Context, l *pq.Listener, fn func(runtime.JobNote)) {
	defer s.listeners.Done()
	defer l.Close()
	ping := time.NewTicker(listenerPing)
	defer ping.Stop()
	hello := time.NewTicker(helloEvery)
	defer hello.Stop()
	sweep := time.NewTicker(staleSweep)
	defer sweep.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.done:
			return
		case <-ping.C:
			if err := l.Ping(); err != nil {
				s.log.Warn("job listener ping failed", "err", err)
			}
		case <-hello.C:
			if err := s.announce(ctx, false); err != nil {
				s.log.Warn("announce this node", "err", err)
			}
		case <-sweep.C:
			if err := s.dropStaleUploads(ctx); err != nil {
				s.log.Warn("drop stale uploads", "err", err)
			}
		case n := <-l.NotificationChannel():
			if n == nil { // after a reconnect, which listenerEvent logs
				// The others' hellos may have gone unheard while the
				// connection was down (all of them, in an outage longer
				// than peerTTL): notify as at start while they answer a
				// hello sent now, rather than keep quiet until the next.
				s.peers.regrace()
				if err := s.announce(ctx, false); err != nil {
					s.log.Warn("announce this node", "err", err)
				}
				fn(runtime.JobNote{Kind: runtime.NoteResync})
				continue
			}
			s.deliver(n.Extra, fn)
		}
	}
}

// deliver decodes one payload and passes on the notes of other nodes.
func (s *Store) deliver(payload string, fn func(runtime.JobNote)) {
	var p notePayload
	if err := json.Unmarshal([]byte(payload), &p); err != nil {
		s.log.Warn("undecodable job note", "err", err)
		return
	}
	if p.Node == s.node {
		return
	}
	s.greet(p)
	for _, n := range p.Notes {
		fn(runtime.JobNote(n))
	}
}

func (s *Store) listenerEvent(ev pq.ListenerEventType, err error) {
	switch ev {
	case pq.ListenerEventDisconnected:
		s.log.Warn("job listener disconnected", "err", err)
	case pq.ListenerEventConnectionAttemptFailed:
		s.log.Warn("job listener cannot connect", "err", err)
	case pq.ListenerEventReconnected:
		s.log.Info("job listener reconnected; catching up with the jobs held and watched here")
	}
}
