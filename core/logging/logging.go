// Package logging is grove's debug log: JSON records (log/slog) in
// $GROVE_HOME/log/grove.log, rotated by size, with every known secret
// redacted before a record is written. Any package logs through L(); until
// a front end installs a log, records are dropped.
package logging

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
)

// Defaults for Open.
const (
	DefaultMaxBytes = 10 << 20
	DefaultKeep     = 3 // grove.log, grove.log.1, grove.log.2
)

// Options tune Open.
type Options struct {
	MaxBytes int64 // rotate when the file would grow past this (DefaultMaxBytes if 0)
	Keep     int   // files kept, the live one included (DefaultKeep if 0)
	// Mirror, when set, receives every record as well (grove --debug in
	// headless mode mirrors to stderr; never while the TUI owns it).
	Mirror io.Writer
	Level  slog.Leveler // slog.LevelDebug if nil
	// Secrets are redacted from every record, as are the values of
	// environment variables that look like credentials.
	Secrets []string
}

// Log is an open debug log.
type Log struct {
	*slog.Logger
	Path    string
	file    *rotatingFile
	secrets *secretSet
}

// Path returns the log file of a grove home.
func Path(home string) string { return filepath.Join(home, "log", "grove.log") }

// Open starts the debug log of home.
func Open(home string, o Options) (*Log, error) {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Keep <= 0 {
		o.Keep = DefaultKeep
	}
	if o.Level == nil {
		o.Level = slog.LevelDebug
	}
	path := Path(home)
	f, err := openRotating(path, o.MaxBytes, o.Keep)
	if err != nil {
		return nil, err
	}
	secrets := newSecretSet()
	secrets.addEnv(os.Environ())
	for _, s := range o.Secrets {
		secrets.add(s)
	}
	var w io.Writer = f
	if o.Mirror != nil {
		w = &teeWriter{file: f, mirror: o.Mirror}
	}
	hopts := &slog.HandlerOptions{Level: o.Level, ReplaceAttr: secrets.replaceAttr}
	h := &redactHandler{inner: slog.NewJSONHandler(w, hopts), secrets: secrets}
	return &Log{Logger: slog.New(h), Path: path, file: f, secrets: secrets}, nil
}

// AddSecret redacts s from every later record (an API key resolved from a
// provider's env_key, a header value from the config).
func (l *Log) AddSecret(s string) { l.secrets.add(s) }

// Close closes the file. Records logged after Close are dropped.
func (l *Log) Close() error { return l.file.Close() }

// teeWriter writes each record to the file, then to the mirror; a failing
// mirror (a closed stderr) never stops the file.
type teeWriter struct {
	file   io.Writer
	mirror io.Writer
}

func (t *teeWriter) Write(p []byte) (int, error) {
	n, err := t.file.Write(p)
	_, _ = t.mirror.Write(p)
	return n, err
}

var (
	current atomic.Pointer[Log]
	// discard is what L returns before Install.
	discard = slog.New(slog.DiscardHandler)
	// installMu orders Install calls so the log they replace is closed once.
	installMu sync.Mutex
)

// L returns the installed debug logger (one that drops records if none).
func L() *slog.Logger {
	if l := current.Load(); l != nil {
		return l.Logger
	}
	return discard
}

// AddSecret redacts s from the installed log's later records.
func AddSecret(s string) {
	if l := current.Load(); l != nil {
		l.AddSecret(s)
	}
}

// Install makes l the log behind L (nil uninstalls) and closes the log it
// replaces.
func Install(l *Log) {
	installMu.Lock()
	defer installMu.Unlock()
	old := current.Swap(l)
	if old != nil && old != l {
		_ = old.Close()
	}
}

// redactHandler removes secrets from the message; attributes go through
// secretSet.replaceAttr.
type redactHandler struct {
	inner   slog.Handler
	secrets *secretSet
}

func (h *redactHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.inner.Enabled(ctx, l)
}

func (h *redactHandler) Handle(ctx context.Context, r slog.Record) error {
	if red := h.secrets.redact(r.Message); red != r.Message {
		nr := slog.NewRecord(r.Time, r.Level, red, r.PC)
		r.Attrs(func(a slog.Attr) bool { nr.AddAttrs(a); return true })
		r = nr
	}
	return h.inner.Handle(ctx, r)
}

func (h *redactHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &redactHandler{inner: h.inner.WithAttrs(as), secrets: h.secrets}
}

func (h *redactHandler) WithGroup(name string) slog.Handler {
	return &redactHandler{inner: h.inner.WithGroup(name), secrets: h.secrets}
}
