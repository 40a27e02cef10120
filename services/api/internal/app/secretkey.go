package app

import (
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/barrage-dev/barrage/services/api/internal/sealer"
)

// newSealer returns the sealer of cfg.SecretKey, which seals the secrets
// of queued runs and stored tests in Postgres. Without a key it makes one
// for this process only (see logSealer). The key is never stored, since a
// key beside the data it seals protects nothing.
func newSealer(cfg Config) (*sealer.Sealer, error) {
	if cfg.SecretKey == "" {
		return sealer.Ephemeral(), nil
	}
	s, err := sealer.Parse(cfg.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("-secret-key: %w", err)
	}
	return s, nil
}

// logSealer logs which key seals secrets, and warns when it is a key of
// this process only: the next process cannot open what it sealed, so runs
// still queued at a restart fail and tests saved meanwhile cannot be run.
func logSealer(cfg Config, log *slog.Logger, s *sealer.Sealer) {
	if cfg.SecretKey != "" {
		log.Info("secrets sealed with the configured key", slog.String("key_id", s.KeyID()))
		return
	}
	log.Warn("no BARRAGE_SECRET_KEY: secrets are sealed with a key of this process only, so runs still queued "+
		"at a restart fail and tests saved now cannot run after it; set one in production (`barrage-api key new`)",
		slog.String("key_id", s.KeyID()))
}

// key runs `key new`.
func key(args []string, stdout io.Writer) error {
	if len(args) != 1 || args[0] != "new" {
		return usageError{errors.New("key needs new")}
	}
	_, err := fmt.Fprintln(stdout, sealer.NewKey())
	return err //nolint:wrapcheck // a write to stdout
}
