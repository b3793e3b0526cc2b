package wiring

import (
	"io"
	"log/slog"
)

// NewLogger returns a text logger at level (debug, info, warn, error;
// anything else is info).
func NewLogger(w io.Writer, level string) *slog.Logger {
	l, _ := NewLevelLogger(w, level)
	return l
}

// NewLevelLogger is NewLogger with the level a reload may change.
func NewLevelLogger(w io.Writer, level string) (*slog.Logger, *slog.LevelVar) {
	v := &slog.LevelVar{}
	SetLevel(v, level)
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: v})), v
}

// SetLevel sets v to level (debug, info, warn, error; anything else is
// info).
func SetLevel(v *slog.LevelVar, level string) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		l = slog.LevelInfo
	}
	v.Set(l)
}
