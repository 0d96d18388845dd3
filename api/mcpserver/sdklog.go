package mcpserver

import (
	"context"
	"log/slog"
	"strings"
)

// sdkLog is the logger the SDK gets: its warnings and errors only, without
// the warning it writes for each session a notification could not reach.
// The SDK logs two INFO lines per initialize and three per request without
// a session, which any client could turn into a flood; and a tools change
// reaches every session, most of which have no stream to take it (an
// audit's 60,000 sessions gave 60,000 warnings for one change).
func sdkLog(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(sdkHandler{l.Handler()})
}

type sdkHandler struct{ slog.Handler }

func (h sdkHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= slog.LevelWarn && h.Handler.Enabled(ctx, level)
}

func (h sdkHandler) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "calling notifications/") {
		return nil
	}
	return h.Handler.Handle(ctx, r)
}

func (h sdkHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return sdkHandler{h.Handler.WithAttrs(attrs)}
}

func (h sdkHandler) WithGroup(name string) slog.Handler { return sdkHandler{h.Handler.WithGroup(name)} }
