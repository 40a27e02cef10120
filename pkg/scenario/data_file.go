package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ReadDataFile returns d with the file it names read into its content,
// relative to dir (the directory of the document that names it), and the
// format taken from the file's extension (.jsonl or .ndjson: jsonl) unless
// one is given; d itself when it names no file. Errors name data.file.
func ReadDataFile(d *Data, dir string) (*Data, error) {
	if d == nil || d.File == "" {
		return d, nil
	}
	if d.Content != "" {
		return nil, &FieldError{Path: "data.file", Msg: "set file or content, not both"}
	}
	name := d.File
	if !filepath.IsAbs(name) {
		name = filepath.Join(dir, name)
	}
	fi, err := os.Stat(name)
	if err != nil {
		return nil, &FieldError{Path: "data.file", Msg: err.Error()}
	}
	if fi.Size() > MaxDataBytes {
		return nil, &FieldError{Path: "data.file", Msg: fmt.Sprintf("%s is %d bytes, more than the %d a scenario may carry", d.File, fi.Size(), MaxDataBytes)}
	}
	b, err := os.ReadFile(name) //nolint:gosec // the file the user's document names
	if err != nil {
		return nil, &FieldError{Path: "data.file", Msg: err.Error()}
	}
	out := *d
	out.Content, out.File = string(b), ""
	if out.Format == "" {
		switch strings.ToLower(filepath.Ext(name)) {
		case ".jsonl", ".ndjson":
			out.Format = DataJSONL
		default:
			out.Format = DataCSV
		}
	}
	return &out, nil
}
