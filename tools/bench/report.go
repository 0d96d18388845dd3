package main

import (
	"fmt"
	"os"
	"os/signal"
	"time"
)

func notifyInterrupt(ch chan os.Signal) { signal.Notify(ch, os.Interrupt) }

func report(rows []result, got map[string]*result) {
	fmt.Println("| run | requests | per second | p50 | p99 | server CPU per request | load generator CPU per request | note |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---|")
	for _, r := range rows {
		fmt.Printf("| %s | %d | %.0f | %s | %s | %s | %s | %s |\n", r.name, r.requests, r.rate, ms(r.p50), ms(r.p99), us(r.cpu), us(r.load), r.note)
	}
	fmt.Println()
	a, b, c, p := got["a"], got["b"], got["c"], got["p"]
	if a != nil && c != nil {
		fmt.Printf("(a)/(c) = %.2f  (target ≥ 0.5)\n", a.rate/c.rate)
	}
	if a0 := got["a0"]; a0 != nil && a != nil {
		fmt.Printf("(a)/(a0) = %.2f  (this build against the baseline)\n", a.rate/a0.rate)
	}
	if b0 := got["b0"]; b0 != nil && b != nil {
		fmt.Printf("(b)/(b0) = %.2f  (this build against the baseline)\n", b.rate/b0.rate)
	}
	if b != nil && c != nil {
		fmt.Printf("(b)/(c) = %.2f\n", b.rate/c.rate)
	}
	if b != nil && p != nil {
		fmt.Printf("(b)/(p) = %.2f  (target ≥ 1: the venue on PostgreSQL records jobs at least as fast as pgbench inserts single rows)\n", b.rate/p.rate)
	}
}

func us(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1000)
}

func ms(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}
