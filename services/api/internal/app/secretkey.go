package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// newSealer returns the sealer of cfg.SecretKey. Without a key it makes one
// for this process only and warns: the secrets of runs still queued when
// the process stops cannot be opened by the next one, which fails them.
// The key is never stored, since a key beside the data it seals protects
// nothing.
func newSealer(cfg Config, log *slog.Logger) (*sealer.Sealer, error) {
	if cfg.SecretKey == "" {
		s := sealer.Ephemeral()
		log.Warn("no BARRAGE_SECRET_KEY: run secrets are sealed with a key of this process only, "+
			"so runs still queued at a restart will fail; set one in production (`barrage-api key new`)",
			slog.String("key_id", s.KeyID()))
		return s, nil
	}
	s, err := sealer.Parse(cfg.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("-secret-key: %w", err)
	}
	log.Info("run secrets sealed with the configured key", slog.String("key_id", s.KeyID()))
	return s, nil
}

// key runs `key new`.
func key(args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "new" {
		return usageError{errors.New("key needs new")}
	}
	_, err := fmt.Fprintln(stdout, sealer.NewKey())
	return err //nolint:wrapcheck // a write to stdout
}
