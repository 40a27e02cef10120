package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPayloadFileIsSentInline: -payload-file's content becomes the spec's
// payload (the API cannot read the CI machine's files), and a file over
// 1 MiB is refused before anything is sent.
func TestPayloadFileIsSentInline(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := filepath.Join(dir, "order.json")
	if err := os.WriteFile(body, []byte(`{"sku":"A-1","qty":2}`), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := parseRunFlags([]string{"--url", "http://t/", "-payload-file", body, "-content-type", "application/json"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.body(nil, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if b.Spec["payload"] != `{"sku":"A-1","qty":2}` || b.Spec["content_type"] != "application/json" || b.Spec["payload_file"] != nil {
		t.Errorf("spec %v, want the file's content as payload", b.Spec)
	}

	big := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(big, make([]byte, maxPayloadFile+1), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = parseRunFlags([]string{"--url", "http://t/", "-payload-file", big}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.body(nil, "", ""); err == nil || !strings.Contains(err.Error(), "more than the 1048576 bytes") {
		t.Errorf("a file of 1 MiB + 1 byte: err %v, want it refused", err)
	}
}
