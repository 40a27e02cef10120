package main

import (
	"context"
	"os"

	"github.com/barrage-dev/barrage/services/api/internal/benchproc"
)

// startServer runs bin serve on the bench database and natsURL, with a
// known admin token (also the admin's password, so no credentials file is
// written), no rate limit, room for 1000 agents per run and no bound on
// the live streams one caller holds (the control-plane scenario's viewers
// share the token), and waits until it listens.
func startServer(ctx context.Context, bin, databaseURL, natsURL, token string) (*benchproc.Process, error) {
	env := append(os.Environ(),
		"DATABASE_URL="+databaseURL, "NATS_URL="+natsURL, "BARRAGE_LISTEN=127.0.0.1:0",
		"BARRAGE_ADMIN_TOKEN="+token, "BARRAGE_ADMIN_PASSWORD="+token, "BARRAGE_RATE_LIMIT=0", "BARRAGE_MAX_AGENTS=1000",
		"BARRAGE_DISPATCH_WAIT=30s", "BARRAGE_STREAMS_PER_CALLER=-1", "BARRAGE_LOG_LEVEL=info")
	return benchproc.Start(ctx, bin, env) //nolint:wrapcheck // Start's errors name the binary and the log
}
