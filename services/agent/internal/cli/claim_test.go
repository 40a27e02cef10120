//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClaimCredentials: agents sharing a directory each take a different
// file, in name order, and one too many is told so.
func TestClaimCredentials(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"agent-2", "agent-1"} {
		if err := os.WriteFile(filepath.Join(dir, n+".creds"), []byte("creds of "+n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not credentials"), 0o600); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 2 {
		path, b, err := claimCredentials(dir)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, filepath.Base(path)+"="+string(b))
	}
	if want := "agent-1.creds=creds of agent-1,agent-2.creds=creds of agent-2"; strings.Join(got, ",") != want {
		t.Errorf("claims %v, want %s", got, want)
	}
	if _, _, err := claimCredentials(dir); err == nil || !strings.Contains(err.Error(), "all 2 credentials are held") {
		t.Errorf("a third claim: err = %v", err)
	}
	if _, _, err := claimCredentials(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.creds") {
		t.Errorf("an empty directory: err = %v", err)
	}
}
