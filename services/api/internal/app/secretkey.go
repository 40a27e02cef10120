package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/barrage-dev/barrage/services/api/internal/sealer"
	"github.com/barrage-dev/barrage/services/api/internal/store"
)

// newSealer returns the sealer of cfg.SecretKey, which seals the secrets
// of queued runs and stored tests in Postgres, and also opens what the keys
// of cfg.SecretKeysPrevious sealed. Without a key it makes one for this
// process only (see logSealer). The keys are never stored, since a key
// beside the data it seals protects nothing.
func newSealer(cfg Config) (*sealer.Sealer, error) {
	if cfg.SecretKey == "" {
		return sealer.Ephemeral(), nil
	}
	s, err := sealer.Parse(cfg.SecretKey, cfg.PreviousKeys()...)
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
		log.Info("secrets sealed with the configured key", slog.String("key_id", s.KeyID()),
			slog.Any("previous_key_ids", s.PreviousKeyIDs()))
		return
	}
	log.Warn("no BARRAGE_SECRET_KEY: secrets are sealed with a key of this process only, so runs still queued "+
		"at a restart fail and tests saved now cannot run after it; set one in production (`barrage-api key new`)",
		slog.String("key_id", s.KeyID()))
}

// key runs `key new` and `key rotate`.
func key(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) == 1 && args[0] == "new":
		_, err := fmt.Fprintln(stdout, sealer.NewKey())
		return err //nolint:wrapcheck // a write to stdout
	case len(args) >= 1 && args[0] == "rotate":
		return keyRotate(ctx, args[1:], environ, stdout, stderr)
	default:
		return usageError{errors.New("key needs new or rotate")}
	}
}

// keyRotate re-seals every sealed value in the database under
// BARRAGE_SECRET_KEY, opening them with it or BARRAGE_SECRET_KEYS_PREVIOUS,
// and prints the counts. It fails when a value could not be opened: the
// previous keys must not be retired then.
func keyRotate(ctx context.Context, args, environ []string, stdout, stderr io.Writer) error {
	var current, previous string
	batch := store.DefaultResealBatch
	cfg, rest, err := dbConfig("key rotate", args, environ, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&current, "secret-key", "", "the key to seal under; unset = BARRAGE_SECRET_KEY")
		fs.StringVar(&previous, "secret-keys-previous", "", "older keys, comma-separated, that opened what is stored; unset = BARRAGE_SECRET_KEYS_PREVIOUS")
		fs.IntVar(&batch, "batch", batch, "rows re-sealed per transaction")
	})
	if err != nil {
		return err
	}
	if current != "" {
		cfg.SecretKey = current
	}
	if previous != "" {
		cfg.SecretKeysPrevious = previous
	}
	switch {
	case len(rest) > 0:
		return usageError{fmt.Errorf("unexpected argument %q", rest[0])}
	case cfg.SecretKey == "":
		return usageError{errors.New("key rotate needs the new key in BARRAGE_SECRET_KEY (or -secret-key) and the old ones in BARRAGE_SECRET_KEYS_PREVIOUS")}
	case batch < 1:
		return usageError{fmt.Errorf("-batch %d: must be at least 1", batch)}
	}
	seal, err := newSealer(cfg)
	if err != nil {
		return usageError{err}
	}
	st, err := openStore(ctx, cfg, quietLog(stderr), seal)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := st.ResealSecrets(ctx, batch)
	for _, e := range rep.Errors {
		fmt.Fprintf(stderr, "cannot re-seal %s\n", e)
	}
	fmt.Fprintf(stdout, "key %s: tests: %d re-sealed, %d already current, %d failed; outbox: %d re-sealed, %d already current, %d failed; searches: %d re-sealed, %d already current, %d failed; remote writes: %d re-sealed, %d already current, %d failed\n",
		seal.KeyID(), rep.Tests.Resealed, rep.Tests.Current, rep.Tests.Failed, rep.Outbox.Resealed, rep.Outbox.Current, rep.Outbox.Failed,
		rep.Searches.Resealed, rep.Searches.Current, rep.Searches.Failed,
		rep.RemoteWrites.Resealed, rep.RemoteWrites.Current, rep.RemoteWrites.Failed)
	if errors.Is(err, store.ErrResealIncomplete) {
		return fmt.Errorf("%w: keep the keys that sealed them in BARRAGE_SECRET_KEYS_PREVIOUS", err)
	}
	if err != nil {
		return fmt.Errorf("re-seal: %w", err)
	}
	return nil
}
