package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/barrage-dev/barrage/services/api/client"
)

const testsUsage = "usage: barrage tests list [-project P] | apply -f FILE [-project P] [--dry-run]"

// tests is `barrage tests list|apply`.
func (e *env) tests(ctx context.Context, args []string) int {
	if len(args) == 0 {
		e.out.errorf(testsUsage)
		return ExitUsage
	}
	fs := flag.NewFlagSet("barrage tests "+args[0], flag.ContinueOnError)
	fs.SetOutput(e.out.stderr)
	project := fs.String("project", "", "project id or slug (default: every project the token sees, or the file's)")
	file := fs.String("f", "", "YAML file of test definitions")
	dryRun := fs.Bool("dry-run", false, "print what apply would do without changing anything")
	if args[0] != "list" && args[0] != "apply" {
		e.out.errorf(testsUsage)
		return ExitUsage
	}
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitPass
		}
		return ExitUsage
	}
	if fs.NArg() > 0 {
		e.out.errorf("barrage tests %s: unexpected argument %q", args[0], fs.Arg(0))
		return ExitUsage
	}
	if args[0] == "list" {
		return e.testsList(ctx, *project)
	}
	if *file == "" {
		e.out.errorf("barrage tests apply: -f FILE is required")
		return ExitUsage
	}
	return e.testsApply(ctx, *file, *project, *dryRun)
}

// listTests returns every test of project (of every project the token
// sees when empty), newest first.
func (e *env) listTests(ctx context.Context, project string) ([]client.Test, error) {
	params := &client.ListTestsParams{Limit: ptr(200)}
	if project != "" {
		params.Project = &project
	}
	var all []client.Test
	for range 50 { // 10,000 tests at most
		var page client.TestPage
		if _, err := call(ctx, &page, func() (*http.Response, error) { return e.api.ListTests(ctx, params) }); err != nil {
			return nil, err
		}
		all = append(all, page.Items...)
		if page.NextCursor == nil || *page.NextCursor == "" {
			break
		}
		params.Cursor = page.NextCursor
	}
	return all, nil
}

// testsList prints a table of the tests.
func (e *env) testsList(ctx context.Context, project string) int {
	list, err := e.listTests(ctx, project)
	if err != nil {
		return e.out.fail("list tests", err)
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tTARGET\tLABELS\tTHRESHOLDS\tUPDATED")
	for i := range list {
		t := &list[i]
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", t.Name, t.Id, t.Spec.URL, formatLabels(t.Labels), len(t.Thresholds),
			t.UpdatedAt.Local().Format(time.DateTime))
	}
	_ = tw.Flush()
	e.out.printf("%s", b.String())
	return ExitPass
}

// formatLabels renders labels as sorted k=v pairs, "-" when there are none.
func formatLabels(labels map[string]string) string {
	if len(labels) == 0 {
		return "-"
	}
	out := make([]string, 0, len(labels))
	for k, v := range labels {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

// testsApply makes the stored tests match the file's definitions, one at
// a time in file order: it creates a missing test, replaces one that
// differs (see sameTest) and leaves an identical one alone. The first
// refused definition stops it: the ones after it are not applied.
func (e *env) testsApply(ctx context.Context, file, project string, dryRun bool) int {
	data, err := os.ReadFile(file) //nolint:gosec // the file the user named
	if err != nil {
		e.out.errorf("barrage tests apply: %v", err)
		return ExitUsage
	}
	docs, err := decodeTestDocs(data)
	for i := 0; err == nil && i < len(docs); i++ {
		err = inlineDataFile(docs[i].Spec, file)
	}
	if err != nil {
		e.out.errorf("barrage tests apply: %s: %v", file, err)
		return ExitUsage
	}
	known := map[string][]client.Test{} // by project as given
	for i := range docs {
		d := &docs[i]
		body := d.body(project)
		if _, ok := known[body.Project]; !ok {
			if known[body.Project], err = e.listTests(ctx, body.Project); err != nil {
				return e.out.fail("list tests", err)
			}
		}
		what := fmt.Sprintf("test %d (%s, line %d)", d.Index, d.Name, d.Line)
		cur, err := findByName(known[body.Project], d.Name)
		if err == nil {
			err = e.applyOne(ctx, d, body, cur, dryRun)
		}
		if err != nil {
			code := e.out.fail(what, err)
			if left := len(docs) - i - 1; left > 0 {
				e.out.errorf("barrage tests apply: stopped there; the %d test(s) after it were not applied", left)
			}
			return code
		}
	}
	return ExitPass
}

// applyOne creates (cur nil), replaces or leaves alone one test and prints
// what it did.
func (e *env) applyOne(ctx context.Context, d *testDoc, body testBody, cur *client.Test, dryRun bool) error {
	word := "created"
	switch {
	case cur == nil:
	case sameTest(d, cur):
		e.out.printf("unchanged  %s  %s\n", d.Name, cur.Id)
		return nil
	default:
		body.Project = "" // TestReplace has none: a test stays in its project
		word = "updated"
	}
	if dryRun {
		id := "(new)"
		if cur != nil {
			id = cur.Id.String()
		}
		e.out.printf("would %s  %s  %s\n", strings.TrimSuffix(word, "d"), d.Name, id)
		return nil
	}
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	send := func() (*http.Response, error) { return e.api.CreateTestWithBody(ctx, jsonBody, bytes.NewReader(b)) }
	if cur != nil {
		send = func() (*http.Response, error) {
			return e.api.ReplaceTestWithBody(ctx, cur.Id, jsonBody, bytes.NewReader(b))
		}
	}
	var t client.Test
	if _, err := call(ctx, &t, send); err != nil {
		return err
	}
	e.out.printf("%s  %s  %s\n", word, t.Name, t.Id)
	return nil
}

// findByName returns the test called name in list, nil when there is none,
// or a conflict when several (of different projects) are.
func findByName(list []client.Test, name string) (*client.Test, error) {
	var found *client.Test
	for i := range list {
		if list[i].Name != name {
			continue
		}
		if found != nil {
			return nil, &client.ProblemError{StatusCode: http.StatusConflict, Problem: client.Problem{Title: "Conflict",
				Detail: ptr("several tests are named " + name + ": give its project (project: in the file or -project)")}}
		}
		found = &list[i]
	}
	return found, nil
}
