package scenario

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
)

// Data files: a table of rows whose columns are variables of the
// iteration that reads the row. The document carries the file's text in
// Content; `barrage run -spec` and `barrage-agent load -scenario` read a
// File into it (ReadDataFile), so the API, the stored spec and the agents
// only ever see Content.

const (
	// MaxDataBytes is the largest data content a scenario carries. It
	// travels in every shard's assignment (one NATS message, at most 1 MiB
	// by default) and in the stored spec.
	MaxDataBytes = 512 << 10
	// MaxDataRows is the most rows a data file may have.
	MaxDataRows = 100_000
)

// The data formats.
const (
	// DataCSV is comma-separated values with a header row.
	DataCSV = "csv"
	// DataJSONL is one JSON object a line.
	DataJSONL = "jsonl"
)

// Data is a scenario's data file.
type Data struct {
	// Format is csv (the default: a header row names the columns) or jsonl
	// (one JSON object a line; its keys name the columns).
	Format string `json:"format,omitempty"`
	// File is a path that the CLIs read into Content, relative to the
	// document that names it. The API takes Content only.
	File string `json:"file,omitempty"`
	// Content is the file's text.
	Content string `json:"content,omitempty"`
	// Split gives each shard of a run rows of its own: shard i of n reads
	// rows i, i+n, i+2n, … (the dispatcher sends each shard only those,
	// SplitData), so no two agents use the same row. By default every
	// shard reads every row.
	Split bool `json:"split,omitempty"`
	// Order is sequential (the default: rows in turn, from the first again
	// after the last) or random (a row drawn for each iteration).
	Order string `json:"order,omitempty"`
}

// Table is a compiled data file.
type Table struct {
	// Columns name the variables a row sets.
	Columns []string
	// Rows hold one value per column.
	Rows [][]string
	// Split is the document's split: the rows are this shard's own, taken
	// in turn by the shard's own iteration count.
	Split bool
	// Random draws a row for each iteration.
	Random bool
}

// Row returns the row an iteration reads: local is the iteration's number
// within this shard, global its number in the run ({{.iteration}}). Shared
// rows go round by the run's numbering, so the shards of a run read
// different rows at once; split rows (the shard's own) by the shard's.
// rng draws a random row.
func (t *Table) Row(local, global int64, rng *rand.Rand) []string {
	n := int64(len(t.Rows))
	switch {
	case t.Random:
		return t.Rows[rng.Int64N(n)]
	case t.Split:
		return t.Rows[local%n]
	default:
		return t.Rows[global%n]
	}
}

// data compiles a data file and defines its columns as variables.
func (c *compiler) data(d *Data, vars map[string]string) *Table {
	const path = "data"
	if d.File != "" {
		c.fail(path+".file", "give the file's text in content: barrage run -spec and barrage-agent load -scenario read the file into it")
		return nil
	}
	switch d.Order {
	case "", "sequential", "random":
	default:
		c.fail(path+".order", "want sequential or random, not %q", d.Order)
	}
	t, err := ParseData(d)
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			c.errs = append(c.errs, fe)
		} else {
			c.fail(path, "%v", err)
		}
		return nil
	}
	for _, col := range t.Columns {
		_, inVars := vars[col]
		switch {
		case col == IterationVar:
			c.fail(path+".content", "column %q: the iteration sets that variable", col)
		case inVars:
			c.fail(path+".content", "column %q is also in vars: a variable has one source", col)
		}
		c.vars[col] = true
	}
	return t
}

// ParseData reads a data file's content into a table. Its errors are
// *FieldErrors naming data.format or data.content, with the line.
func ParseData(d *Data) (*Table, error) {
	const path = "data"
	if len(d.Content) > MaxDataBytes {
		return nil, &FieldError{Path: path + ".content", Msg: fmt.Sprintf("%d bytes, more than the %d a scenario may carry", len(d.Content), MaxDataBytes)}
	}
	if strings.TrimSpace(d.Content) == "" {
		return nil, &FieldError{Path: path + ".content", Msg: "required: the data file's text, a header row then one row per line"}
	}
	var t *Table
	var err error
	content := strings.TrimPrefix(d.Content, "\ufeff") // a byte order mark, as spreadsheets write
	switch d.Format {
	case "", DataCSV:
		t, err = parseCSV(content)
	case DataJSONL:
		t, err = parseJSONL(content)
	default:
		return nil, &FieldError{Path: path + ".format", Msg: fmt.Sprintf("want csv or jsonl, not %q", d.Format)}
	}
	if err != nil {
		return nil, &FieldError{Path: path + ".content", Msg: err.Error()}
	}
	t.Split, t.Random = d.Split, d.Order == "random"
	return t, nil
}

func parseCSV(content string) (*Table, error) {
	r := csv.NewReader(strings.NewReader(content))
	header, err := r.Read()
	if err != nil {
		return nil, csvError(err)
	}
	if err := checkColumns(header); err != nil {
		return nil, fmt.Errorf("line 1: %w", err)
	}
	t := &Table{Columns: header}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(err)
		}
		if len(t.Rows) == MaxDataRows {
			return nil, fmt.Errorf("more than %d rows", MaxDataRows)
		}
		t.Rows = append(t.Rows, rec)
	}
	if len(t.Rows) == 0 {
		return nil, errors.New("no rows after the header row")
	}
	return t, nil
}

// csvError names the line of a CSV error without repeating its record.
func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("line %d: %w", pe.Line, pe.Err)
	}
	return err
}

func parseJSONL(content string) (*Table, error) {
	t := &Table{}
	var pos map[string]int // the first line's keys and their columns
	for i, line := range strings.Split(content, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("line %d: not a JSON object", i+1)
		}
		if pos == nil {
			for k := range obj {
				t.Columns = append(t.Columns, k)
			}
			slices.Sort(t.Columns)
			if err := checkColumns(t.Columns); err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			pos = make(map[string]int, len(obj))
			for j, k := range t.Columns {
				pos[k] = j
			}
		}
		if len(t.Rows) == MaxDataRows {
			return nil, fmt.Errorf("more than %d rows", MaxDataRows)
		}
		row := make([]string, len(t.Columns))
		for k, v := range obj {
			j, ok := pos[k]
			if !ok {
				return nil, fmt.Errorf("line %d: key %q is not in the first line", i+1, k)
			}
			row[j] = jsonValue(v)
		}
		if len(obj) != len(t.Columns) {
			for _, k := range t.Columns {
				if _, ok := obj[k]; !ok {
					return nil, fmt.Errorf("line %d: key %q of the first line is missing", i+1, k)
				}
			}
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil, errors.New("no rows")
	}
	return t, nil
}

// jsonValue is a JSON value as a variable: a string as is, anything else
// as compact JSON.
func jsonValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// checkColumns checks that the column names are variable names, once each.
func checkColumns(cols []string) error {
	if len(cols) == 0 {
		return errors.New("no columns")
	}
	for i, col := range cols {
		if !validVar(col) {
			return fmt.Errorf("column %q: a variable name is a letter or '_' then letters, digits or '_'", col)
		}
		if slices.Contains(cols[:i], col) {
			return fmt.Errorf("column %q appears twice", col)
		}
	}
	return nil
}

// encode writes a table back in the document's format: CSV with its header
// row, or JSON lines whose values are the rows' strings (which render as
// the original values did).
func (t *Table) encode(format string) (string, error) {
	var b strings.Builder
	if format == DataJSONL {
		obj := make(map[string]string, len(t.Columns))
		for _, row := range t.Rows {
			for i, col := range t.Columns {
				obj[col] = row[i]
			}
			j, err := json.Marshal(obj)
			if err != nil {
				return "", err
			}
			b.Write(j)
			b.WriteByte('\n')
		}
		return b.String(), nil
	}
	w := csv.NewWriter(&b)
	if err := w.Write(t.Columns); err != nil {
		return "", err
	}
	if err := w.WriteAll(t.Rows); err != nil {
		return "", err
	}
	return b.String(), nil
}

// SplitData returns the data of each of n shards: when d is split, shard
// i's rows i, i+n, i+2n, …, in d's format, read once for all of them; a
// shared file (or nil) is every shard's as it is.
func SplitData(d *Data, n int) ([]*Data, error) {
	out := make([]*Data, max(n, 1))
	if d == nil || !d.Split || n <= 1 {
		for i := range out {
			out[i] = d
		}
		return out, nil
	}
	t, err := ParseData(d)
	if err != nil {
		return nil, err
	}
	if len(t.Rows) < n {
		return nil, fmt.Errorf("data: %d rows cannot be split over %d shards", len(t.Rows), n)
	}
	for i := range out {
		own := &Table{Columns: t.Columns}
		for j := i; j < len(t.Rows); j += n {
			own.Rows = append(own.Rows, t.Rows[j])
		}
		content, err := own.encode(d.Format)
		if err != nil {
			return nil, err
		}
		part := *d
		part.Content = content
		out[i] = &part
	}
	return out, nil
}

// DataRows is the number of rows of d's content, 0 when it has none or
// does not parse.
func DataRows(d *Data) int {
	if d == nil {
		return 0
	}
	t, err := ParseData(d)
	if err != nil {
		return 0
	}
	return len(t.Rows)
}

// RedactData returns d with the values of its secret columns (secret
// reports which) replaced by redacted, or d itself when it has none. Content
// that does not parse is replaced whole: it may hold anything.
func RedactData(d *Data, secret func(string) bool, redacted string) *Data {
	if d == nil || d.Content == "" {
		return d
	}
	t, err := ParseData(d)
	if err != nil {
		out := *d
		out.Content = redacted
		return &out
	}
	var cols []int
	for i, col := range t.Columns {
		if secret(col) {
			cols = append(cols, i)
		}
	}
	if len(cols) == 0 {
		return d
	}
	for _, row := range t.Rows {
		for _, i := range cols {
			row[i] = redacted
		}
	}
	content, err := t.encode(d.Format)
	out := *d
	out.Content = content
	if err != nil {
		out.Content = redacted
	}
	return &out
}
