//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
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
		held, err := claimCredentials(dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = held.lock.Close() })
		got = append(got, filepath.Base(held.path)+"="+string(held.creds))
	}
	if want := "agent-1.creds=creds of agent-1,agent-2.creds=creds of agent-2"; strings.Join(got, ",") != want {
		t.Errorf("claims %v, want %s", got, want)
	}
	if _, err := claimCredentials(dir); err == nil || !strings.Contains(err.Error(), "all 2 credentials are held") {
		t.Errorf("a third claim: err = %v", err)
	}
	if _, err := claimCredentials(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no *.creds") {
		t.Errorf("an empty directory: err = %v", err)
	}
}

// TestClaimHeldAcrossGC: a claim holds after garbage collections. The file
// whose flock is the claim must stay reachable: an unreachable *os.File is
// closed by its finalizer, which drops the lock, and the next agent of the
// stack (a container restarted, one more replica) then takes credentials
// that a running agent still uses (seen in scripts/compose-smoke).
func TestClaimHeldAcrossGC(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent-1.creds"), []byte("creds"), 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := claimCredentials(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer held.lock.Close() // as runServe holds it
	for range 3 {
		runtime.GC()
	}
	time.Sleep(50 * time.Millisecond) // finalizers run on their own goroutine
	if again, err := claimCredentials(dir); err == nil {
		t.Fatalf("a second claim after GC took %s, which the first still holds", again.path)
	}
}
