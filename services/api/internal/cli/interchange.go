package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/client"
)

// maxImportFile is the largest file `barrage import` sends; the API caps
// bodies too.
const maxImportFile = 64 << 20

// importFiles is `barrage import [-project P] FILE...`: each Fortio result
// JSON becomes an imported run. Exit 0 when every file was imported, 2
// when one was refused or unreadable, 1 when the API could not be reached.
func (e *env) importFiles(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("barrage import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	project := fs.String("project", "", "project id or slug")
	if err := fs.Parse(args); err != nil || fs.NArg() == 0 {
		e.out.errorf("usage: barrage import [-project P] FILE...  (Fortio result JSON files)")
		return ExitUsage
	}
	code := ExitPass
	for _, file := range fs.Args() {
		run, err := e.importFile(ctx, *project, file)
		var fe *fileError
		if errors.As(err, &fe) {
			e.out.errorf("barrage: import %s: %v", file, fe.err)
			code = max(code, ExitUsage)
			continue
		}
		if err != nil {
			c := e.out.fail("import "+file, err)
			var ue *unreachableError
			if errors.As(err, &ue) {
				return c
			}
			code = max(code, c)
			continue
		}
		line := fmt.Sprintf("imported %s as run %s (%s)", file, run.Id, run.Name)
		if sm := run.Summary; sm != nil {
			line += fmt.Sprintf(": %d calls, p50 %s, p99 %s", sm.Count, formatMicros(deref(sm.P50Us)), formatMicros(deref(sm.P99Us)))
		}
		e.out.printf("%s\n", line)
	}
	return code
}

// importFile posts one file to /imports.
func (e *env) importFile(ctx context.Context, project, file string) (client.Run, error) {
	var run client.Run
	f, err := os.Open(file) //nolint:gosec // the user names the file
	if err != nil {
		return run, &fileError{err}
	}
	defer f.Close()
	doc, err := io.ReadAll(io.LimitReader(f, maxImportFile+1))
	if err != nil {
		return run, &fileError{err}
	}
	if len(doc) > maxImportFile {
		return run, &fileError{fmt.Errorf("larger than %d bytes", maxImportFile)}
	}
	params := &client.CreateImportParams{Origin: ptr(filepath.Base(file))}
	if project != "" {
		params.Project = &project
	}
	_, err = call(ctx, &run, func() (*http.Response, error) {
		return e.api.CreateImportWithBody(ctx, params, jsonBody, bytes.NewReader(doc))
	})
	return run, err
}

// fileError is a file the CLI could not read: a usage error.
type fileError struct{ err error }

func (e *fileError) Error() string { return e.err.Error() }

const syncUsage = `usage: barrage sync list [-project P]
       barrage sync add -name NAME -url URL [-project P] [-interval MINUTES]
       barrage sync run SOURCE-ID [-wait 10m]`

// sync is `barrage sync list|add|run`.
func (e *env) sync(ctx context.Context, args []string) int {
	if len(args) == 0 {
		e.out.errorf("%s", syncUsage)
		return ExitUsage
	}
	fs := flag.NewFlagSet("barrage sync", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	project := fs.String("project", "", "project id or slug")
	name := fs.String("name", "", "source name")
	u := fs.String("url", "", "index.tsv or bucket listing URL")
	interval := fs.Int("interval", 0, "sync every MINUTES; 0 = on demand")
	wait := fs.Duration("wait", 10*time.Minute, "how long to wait for the sync")
	cmd, rest := args[0], args[1:]
	var id string
	if cmd == "run" && len(rest) > 0 && isID(rest[0]) {
		id, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil || fs.NArg() > 0 {
		e.out.errorf("%s", syncUsage)
		return ExitUsage
	}
	switch {
	case cmd == "list":
		return e.syncList(ctx, *project)
	case cmd == "add" && *name != "" && *u != "":
		body := map[string]any{"name": *name, "url": *u, "interval_minutes": *interval}
		if *project != "" {
			body["project"] = *project
		}
		var src client.SyncSource
		b, err := json.Marshal(body)
		if err == nil {
			_, err = call(ctx, &src, func() (*http.Response, error) {
				return e.api.CreateSyncSourceWithBody(ctx, jsonBody, bytes.NewReader(b))
			})
		}
		if err != nil {
			return e.out.fail("add sync source", err)
		}
		e.out.printf("added sync source %s (%s) for %s\n", src.Id, src.Name, src.Url)
		return ExitPass
	case cmd == "run" && id != "":
		return e.syncRun(ctx, uuid.MustParse(id), *wait) // isID above
	}
	e.out.errorf("%s", syncUsage)
	return ExitUsage
}

// syncList prints the sources with their latest sync.
func (e *env) syncList(ctx context.Context, project string) int {
	params := &client.ListSyncSourcesParams{Limit: ptr(100)}
	if project != "" {
		params.Project = &project
	}
	var page client.SyncSourcePage
	if _, err := call(ctx, &page, func() (*http.Response, error) { return e.api.ListSyncSources(ctx, params) }); err != nil {
		return e.out.fail("list sync sources", err)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tKIND\tEVERY\tLAST SYNC\tIMPORTED\tUNCHANGED\tFAILED\tURL")
	for i := range page.Items {
		s := &page.Items[i]
		every, last, imported, unchanged, failed := "on demand", "never", "-", "-", "-"
		if s.IntervalMinutes > 0 {
			every = fmt.Sprintf("%dm", s.IntervalMinutes)
		}
		if r := s.LastRun; r != nil {
			last = string(r.Status) + " " + r.StartedAt.Local().Format(time.DateTime)
			imported, unchanged, failed = fmt.Sprint(r.Imported), fmt.Sprint(r.Unchanged), fmt.Sprint(r.Failed)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.Id, s.Name, s.Kind, every, last, imported, unchanged, failed, s.Url)
	}
	_ = tw.Flush()
	e.out.printf("%s", b.String())
	return ExitPass
}

// syncRun starts a sync, prints its progress and each object's outcome,
// and exits 0 when it succeeded, 97 when it failed or was partial.
func (e *env) syncRun(ctx context.Context, id uuid.UUID, wait time.Duration) int {
	var run client.SyncRun
	if _, err := call(ctx, &run, func() (*http.Response, error) { return e.api.RunSyncSource(ctx, id) }); err != nil {
		return e.out.fail("start sync", err)
	}
	deadline := e.now().Add(wait)
	last := ""
	for {
		if _, err := call(ctx, &run, func() (*http.Response, error) { return e.api.GetSyncRun(ctx, run.Id) }); err != nil {
			return e.out.fail("read sync", err)
		}
		line := fmt.Sprintf("sync %s: %s, %d pages, %d imported, %d unchanged, %d skipped, %d failed",
			run.Id, run.Status, run.Pages, run.Imported, run.Unchanged, run.Skipped, run.Failed)
		if line != last {
			e.out.printf("%s\n", line)
			last = line
		}
		if run.Status != client.SyncRunning {
			break
		}
		if e.now().After(deadline) {
			e.out.errorf("barrage: the sync did not end within %v; it goes on in the server", wait)
			return ExitRunError
		}
		select {
		case <-ctx.Done():
			return ExitRunError
		case <-time.After(time.Second):
		}
	}
	e.printObjects(run)
	if run.Status != client.SyncSucceeded {
		if msg := deref(run.Error); msg != "" {
			e.out.errorf("barrage: sync %s: %s", run.Status, msg)
		}
		return ExitRunError
	}
	return ExitPass
}

// printObjects prints each object's outcome of a finished sync.
func (e *env) printObjects(run client.SyncRun) {
	objs := deref(run.Objects)
	if len(objs) == 0 {
		return
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OUTCOME\tRUN\tURL\tREASON")
	for _, o := range objs {
		runID := "-"
		if o.RunId != nil {
			runID = o.RunId.String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", o.Outcome, runID, o.Url, deref(o.Reason))
	}
	_ = tw.Flush()
	e.out.printf("%s", b.String())
}
