package auth

import (
	"net/http"

	venue "github.com/gridvenue/venue"
)

// httpHandler is a handler that reports the caller it was given.
func httpHandler(seen func(venue.Caller)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := venue.CallerFrom(r.Context())
		seen(c)
	})
}
