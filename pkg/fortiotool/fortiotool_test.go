package fortiotool

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindPrefersEnvThenToolsDir(t *testing.T) {
	t.Setenv("FORTIO_BIN", "/opt/fortio")
	if p, err := Find(); err != nil || p != "/opt/fortio" {
		t.Fatalf("with FORTIO_BIN: %q, %v", p, err)
	}
	t.Setenv("FORTIO_BIN", "")
	root := t.TempDir()
	bin := filepath.Join(root, ".tools", "bin", "fortio")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(root, "a", "b")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(sub)
	if p, err := Find(); err != nil || p != bin {
		t.Fatalf("from a subdirectory: %q, %v; want %q", p, err, bin)
	}
}
