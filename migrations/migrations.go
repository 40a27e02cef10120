// Package migrations holds Barrage's Postgres schema as numbered goose SQL
// migrations, embedded so that barrage-api applies them at start. It holds
// SQL only; the code that runs it is the API's store package.
package migrations

import "embed"

// FS holds the *.sql migrations, applied in file-name order.
//
//go:embed *.sql
var FS embed.FS
