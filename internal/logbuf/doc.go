// Package logbuf holds Buffer, a log sink for tests that read what a
// server logged while its goroutines may still be writing.
package logbuf
