// Command venued runs a grid venue: venued [config.json] [flags].
// "venued openapi" prints the OpenAPI 3.0 document and exits; "venued token"
// mints a did:key identity and a bearer token for it; "venued version"
// prints the release and the build.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"
)

func main() {
	if isHelp(os.Args[1:]) {
		fmt.Print(helpText)
		return
	}
	if isVersion(os.Args[1:]) {
		fmt.Print(versionText(debug.ReadBuildInfo()))
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "openapi" {
		if len(os.Args) > 2 {
			fmt.Fprintln(os.Stderr, "venued openapi: takes no arguments")
			os.Exit(2)
		}
		if err := printOpenAPI(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "venued:", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "token" {
		if err := runToken(os.Args[2:], os.Getenv, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "venued token:", err)
			os.Exit(2)
		}
		return
	}
	cfg, err := loadConfig(os.Args[1:], os.Getenv)
	if err != nil {
		fmt.Fprintln(os.Stderr, "venued:", err)
		os.Exit(2)
	}
	if os.Getenv("GOGC") == "" {
		// The live heap is small and garbage comes fast (a record per state),
		// so the default GC target runs collections back to back; a higher
		// one trades a few MB for about a tenth of the CPU under load.
		debug.SetGCPercent(400)
	}
	if limit := gcMemoryLimit(os.Getenv, os.ReadFile); limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	// Registered before NotifyContext's, so that this channel also sees
	// the first signal, and with room for two, so that neither is dropped.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	m := NewMain(cfg)
	go forceOnSecondSignal(signals, m.Logger, os.Exit)
	if unknown := unknownEnv(os.Environ()); len(unknown) > 0 {
		m.Logger.Warn("ignoring environment variables the venue does not read: README's configuration table names every VENUE_* variable",
			"unknown", strings.Join(unknown, ","))
	}
	code := serve(ctx, m, nil)
	stop()
	os.Exit(code)
}

// serve runs m until ctx ends (for main, at SIGINT or SIGTERM) and returns
// the exit code: 0 after a normal stop, 1 if the venue did not start or
// could not close cleanly. started, if not nil, is called once it serves.
func serve(ctx context.Context, m *Main, started func()) int {
	if err := m.Run(ctx); err != nil {
		m.Logger.Error("start", "err", err)
		m.Close()
		return 1
	}
	if started != nil {
		started()
	}
	<-ctx.Done()
	m.Logger.Info("shutting down", "why", context.Cause(ctx), // for main, the signal
		"force", "a second SIGINT or SIGTERM exits at once")
	begun := time.Now()
	if err := m.Close(); err != nil && !errors.Is(err, context.Canceled) {
		m.Logger.Error("shutdown", "err", err)
		return 1
	}
	m.Logger.Info("venue stopped", "took", time.Since(begun).Round(time.Millisecond))
	return 0
}

// forceOnSecondSignal exits at once at the second signal of signals (main's
// SIGINT and SIGTERM), with code 1. The first starts the stop, which may
// wait up to shutdownTimeout for slow connections; an operator who presses
// Ctrl-C again, or a supervisor that sends SIGTERM twice, means now, and
// without this the second signal was swallowed without a word.
func forceOnSecondSignal(signals <-chan os.Signal, log *slog.Logger, exit func(int)) {
	<-signals // the one that began the stop
	sig := <-signals
	log.Warn("second signal: exiting at once, without finishing the stop (the jobs running here are left as a killed "+
		"node leaves them, and a temporary store's directory stays behind)", "signal", sig)
	exit(1)
}
