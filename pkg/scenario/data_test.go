package scenario_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/scenario"
)

// withData is a one-step scenario that reads user and password from a data
// file given as a YAML block.
func withData(data string) string {
	return `
name: data
steps:
  - name: login
    url: http://127.0.0.1:1/login?u={{.user}}
    body: 'pw={{.password}}'
data:
` + data
}

func TestDataCSVSetsVariablesFromItsColumns(t *testing.T) {
	t.Parallel()
	p := mustParse(t, withData(`
  content: |
    user,password
    ann,"p,1"
    "bob ""b""",p2
    carl,"multi
    line"
`))
	d := p.Data
	if d == nil || !slices.Equal(d.Columns, []string{"user", "password"}) || len(d.Rows) != 3 {
		t.Fatalf("table: %+v", d)
	}
	if d.Rows[0][1] != "p,1" || d.Rows[1][0] != `bob "b"` || d.Rows[2][1] != "multi\nline" {
		t.Fatalf("rows: %q", d.Rows)
	}
	vars := map[string]string{scenario.IterationVar: "0"}
	for i, c := range d.Columns {
		vars[c] = d.Rows[0][i]
	}
	req, err := p.Steps[0].Render(vars)
	if err != nil || req.URL != "http://127.0.0.1:1/login?u=ann" || string(req.Body) != "pw=p,1" {
		t.Fatalf("render: %+v %v", req, err)
	}
}

// TestDataCSVFromASpreadsheet: a byte order mark and CRLF line ends, as
// spreadsheets export CSV, read as the plain file does.
func TestDataCSVFromASpreadsheet(t *testing.T) {
	t.Parallel()
	tab, err := scenario.ParseData(&scenario.Data{Content: "\ufeffuser,password\r\nann,p1\r\nbob,p2\r\n"})
	if err != nil || !slices.Equal(tab.Columns, []string{"user", "password"}) || len(tab.Rows) != 2 || tab.Rows[1][1] != "p2" {
		t.Fatalf("table %+v, %v", tab, err)
	}
}

func TestDataJSONLValuesAreStringsOrJSON(t *testing.T) {
	t.Parallel()
	p := mustParse(t, withData(`
  format: jsonl
  content: |
    {"user": "ann", "password": "x", "id": 42, "tags": ["a", "b"]}

    {"user": "bob", "password": "y", "id": 7.5, "tags": {"k": null}}
`))
	d := p.Data
	if !slices.Equal(d.Columns, []string{"id", "password", "tags", "user"}) || len(d.Rows) != 2 {
		t.Fatalf("table: %+v", d)
	}
	if !slices.Equal(d.Rows[0], []string{"42", "x", `["a","b"]`, "ann"}) || !slices.Equal(d.Rows[1], []string{"7.5", "y", `{"k":null}`, "bob"}) {
		t.Fatalf("rows: %q", d.Rows)
	}
}

func TestDataErrorsNameTheFieldAndLine(t *testing.T) {
	t.Parallel()
	big := "user,password\n" + strings.Repeat("ann,pw\n", scenario.MaxDataBytes/7+1)
	cases := map[string]struct{ data, want string }{
		"wrong field count": {"  content: \"user,password\\nann,1\\nbob\\n\"\n", "data.content: line 3: wrong number of fields"},
		"bare quote":        {"  content: \"user,password\\nan\\\"n,1\\n\"\n", `data.content: line 2: bare " in non-quoted-field`},
		"bad column":        {"  content: \"user,pass word\\nann,1\\n\"\n", `data.content: line 1: column "pass word": a variable name`},
		"twice":             {"  content: \"user,password,user\\nann,1,2\\n\"\n", `data.content: line 1: column "user" appears twice`},
		"no rows":           {"  content: \"user,password\\n\"\n", "data.content: no rows after the header row"},
		"empty":             {"  content: \"\"\n", "data.content: required"},
		"format":            {"  format: xml\n  content: \"a\\n1\\n\"\n", `data.format: want csv or jsonl, not "xml"`},
		"order":             {"  order: shuffled\n  content: \"user,password\\na,b\\n\"\n", `data.order: want sequential or random, not "shuffled"`},
		"file":              {"  file: users.csv\n", "data.file: give the file's text in content"},
		"iteration":         {"  content: \"user,password,iteration\\na,b,c\\n\"\n", `data.content: column "iteration": the iteration sets that variable`},
		"jsonl not object":  {"  format: jsonl\n  content: \"{\\\"user\\\":\\\"a\\\",\\\"password\\\":\\\"b\\\"}\\n[1]\\n\"\n", "data.content: line 2: not a JSON object"},
		"jsonl extra key":   {"  format: jsonl\n  content: \"{\\\"user\\\":\\\"a\\\",\\\"password\\\":\\\"b\\\"}\\n{\\\"user\\\":\\\"a\\\",\\\"password\\\":\\\"b\\\",\\\"x\\\":1}\\n\"\n", `data.content: line 2: key "x" is not in the first line`},
		"jsonl missing key": {"  format: jsonl\n  content: \"{\\\"user\\\":\\\"a\\\",\\\"password\\\":\\\"b\\\"}\\n{\\\"user\\\":\\\"a\\\"}\\n\"\n", `data.content: line 2: key "password" of the first line is missing`},
		"too large":         {"  content: |\n    " + strings.ReplaceAll(strings.TrimSpace(big), "\n", "\n    ") + "\n", "more than the 524288 a scenario may carry"},
		"unknown field":     {"  rows: 3\n  content: \"user,password\\na,b\\n\"\n", "data.rows: unknown field"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := scenario.Parse([]byte(withData(c.data)))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	// A column that no template uses is fine; a variable that neither vars
	// nor the data defines is still unknown.
	_, err := scenario.Parse([]byte(strings.Replace(withData("  content: \"user,password\\na,b\\n\"\n"), "{{.password}}", "{{.pasword}}", 1)))
	if err == nil || !strings.Contains(err.Error(), `steps[0].body: unknown variable "pasword"`) {
		t.Fatalf("unknown variable: %v", err)
	}
	_, err = scenario.Parse([]byte(strings.Replace(withData("  content: \"user,password\\na,b\\n\"\n"), "name: data", "name: data\nvars: {user: x}", 1)))
	if err == nil || !strings.Contains(err.Error(), `data.content: column "user" is also in vars`) {
		t.Fatalf("column in vars: %v", err)
	}
}

func TestDataRowOrder(t *testing.T) {
	t.Parallel()
	rows := [][]string{{"0"}, {"1"}, {"2"}, {"3"}, {"4"}}
	first := func(r []string) string { return r[0] }
	// Shared, sequential: shard 1 of 2 numbers its iterations 1, 3, 5, …
	// and reads rows 1, 3, 0, 2, 4, 1: every row in turn over the run.
	shared := &scenario.Table{Columns: []string{"n"}, Rows: rows}
	var got []string
	for n := range int64(6) {
		got = append(got, first(shared.Row(n, 1+2*n, nil)))
	}
	if strings.Join(got, "") != "130241" {
		t.Fatalf("shared rows: %v", got)
	}
	// Split: the shard's own rows, in turn by its own count.
	own := &scenario.Table{Columns: []string{"n"}, Rows: rows[:2], Split: true}
	got = got[:0]
	for n := range int64(5) {
		got = append(got, first(own.Row(n, 7+3*n, nil)))
	}
	if strings.Join(got, "") != "01010" {
		t.Fatalf("split rows: %v", got)
	}
	// Random: every row drawn, none outside the table.
	random := &scenario.Table{Columns: []string{"n"}, Rows: rows, Random: true}
	rng := rand.New(rand.NewPCG(1, 2))
	seen := map[string]int{}
	for n := range int64(500) {
		seen[first(random.Row(n, n, rng))]++
	}
	if len(seen) != 5 {
		t.Fatalf("random rows: %v", seen)
	}
	for r, k := range seen {
		if k < 60 || k > 140 {
			t.Fatalf("row %s drawn %d times of 500", r, k)
		}
	}
}

func TestSplitDataGivesEachShardItsOwnRows(t *testing.T) {
	t.Parallel()
	for _, format := range []string{scenario.DataCSV, scenario.DataJSONL} {
		content := "user,password\nann,\"a,1\"\nbob,b\ncat,c\ndan,d\neve,e\n"
		if format == scenario.DataJSONL {
			content = `{"user":"ann","password":"a,1"}` + "\n" + `{"user":"bob","password":"b"}` + "\n" +
				`{"user":"cat","password":"c"}` + "\n" + `{"user":"dan","password":"d"}` + "\n" + `{"user":"eve","password":"e"}` + "\n"
		}
		d := &scenario.Data{Format: format, Content: content, Split: true}
		parts, err := scenario.SplitData(d, 2)
		if err != nil || len(parts) != 2 {
			t.Fatalf("%s: %d parts, %v", format, len(parts), err)
		}
		var users []string
		for i, want := range []string{"ann cat eve", "bob dan"} {
			tab, err := scenario.ParseData(parts[i])
			if err != nil {
				t.Fatalf("%s shard %d: %v\n%s", format, i, err, parts[i].Content)
			}
			var names []string
			for _, r := range tab.Rows {
				names = append(names, r[slices.Index(tab.Columns, "user")])
			}
			if strings.Join(names, " ") != want || !tab.Split {
				t.Fatalf("%s shard %d: %v", format, i, names)
			}
			if i == 0 && tab.Rows[0][slices.Index(tab.Columns, "password")] != "a,1" {
				t.Fatalf("%s: the quoted value came back as %q", format, tab.Rows[0])
			}
			users = append(users, names...)
		}
		slices.Sort(users)
		if strings.Join(users, " ") != "ann bob cat dan eve" {
			t.Fatalf("%s: union %v", format, users)
		}
		if _, err := scenario.SplitData(d, 6); err == nil || !strings.Contains(err.Error(), "5 rows cannot be split over 6 shards") {
			t.Fatalf("too few rows: %v", err)
		}
	}
	shared := &scenario.Data{Content: "a\n1\n2\n"}
	if got, _ := scenario.SplitData(shared, 2); len(got) != 2 || got[0] != shared || got[1] != shared {
		t.Fatalf("a shared file is sent whole to each shard: %+v", got)
	}
}

func TestRedactDataHidesSecretColumns(t *testing.T) {
	t.Parallel()
	secret := func(s string) bool { return s == "password" }
	d := &scenario.Data{Content: "user,password\nann,hunter2\nbob,\"s,3\"\n"}
	r := scenario.RedactData(d, secret, "[redacted]")
	if strings.Contains(r.Content, "hunter2") || strings.Contains(r.Content, "s,3") || !strings.Contains(r.Content, "ann,[redacted]") {
		t.Fatalf("redacted: %q", r.Content)
	}
	if d.Content != "user,password\nann,hunter2\nbob,\"s,3\"\n" {
		t.Fatal("the original changed")
	}
	j := &scenario.Data{Format: scenario.DataJSONL, Content: `{"user":"ann","password":"hunter2"}`}
	if r := scenario.RedactData(j, secret, "[redacted]"); strings.Contains(r.Content, "hunter2") || !strings.Contains(r.Content, `"user":"ann"`) {
		t.Fatalf("jsonl redacted: %q", r.Content)
	}
	plain := &scenario.Data{Content: "user,id\nann,1\n"}
	if scenario.RedactData(plain, secret, "[redacted]") != plain {
		t.Fatal("no secret column: unchanged")
	}
	broken := &scenario.Data{Content: "user,password\nann,hunter2,extra\n"}
	if r := scenario.RedactData(broken, secret, "[redacted]"); r.Content != "[redacted]" {
		t.Fatalf("unparsed content is redacted whole: %q", r.Content)
	}
}

func TestReadDataFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "users.jsonl"), []byte(`{"user":"ann","password":"x"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := scenario.ReadDataFile(&scenario.Data{File: "users.jsonl", Split: true}, dir)
	if err != nil || d.File != "" || d.Format != scenario.DataJSONL || !d.Split || !strings.Contains(d.Content, "ann") {
		t.Fatalf("read: %+v %v", d, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.csv"), make([]byte, scenario.MaxDataBytes+1), 0o600); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"big.csv":     "data.file: big.csv is 524289 bytes, more than the 524288",
		"missing.csv": "data.file: ",
	} {
		if _, err := scenario.ReadDataFile(&scenario.Data{File: file}, dir); err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v", file, err)
		}
	}
	if _, err := scenario.ReadDataFile(&scenario.Data{File: "a.csv", Content: "x"}, dir); err == nil || !strings.Contains(err.Error(), "set file or content, not both") {
		t.Fatalf("both: %v", err)
	}
}
