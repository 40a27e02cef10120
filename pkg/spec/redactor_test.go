package spec

import (
	"slices"
	"testing"
)

func TestRedactorExtraNames(t *testing.T) {
	t.Parallel()
	r := NewRedactor([]string{" X-Tenant-Sig ", "x-tenant-sig", "", "Signature"})
	if got, want := r.Names(), []string{"signature", "x-tenant-sig"}; !slices.Equal(got, want) {
		t.Fatalf("Names = %q, want %q", got, want)
	}
	in := Spec{
		URL:     "http://u:pw@example.com/p?signature=abc&x=1&token=t",
		Headers: []string{"X-TENANT-SIG: s3cr3t", "Authorization: Bearer b", "X-Tenant-Sigs: kept", "Accept: */*", "x-tenant-sig"},
	}
	got := r.Spec(in)
	wantHeaders := []string{"X-TENANT-SIG: REDACTED", "Authorization: REDACTED", "X-Tenant-Sigs: kept", "Accept: */*", "REDACTED"}
	if !slices.Equal(got.Headers, wantHeaders) {
		t.Errorf("headers = %q, want %q", got.Headers, wantHeaders)
	}
	if want := "http://REDACTED:REDACTED@example.com/p?signature=REDACTED&x=1&token=REDACTED"; got.URL != want {
		t.Errorf("URL = %q, want %q", got.URL, want)
	}
	if in.Headers[0] != "X-TENANT-SIG: s3cr3t" {
		t.Errorf("the input spec was changed: %q", in.Headers[0])
	}
	if again := r.Spec(got); !slices.Equal(again.Headers, got.Headers) || again.URL != got.URL {
		t.Errorf("redacting twice differs: %+v vs %+v", again, got)
	}
	// The built-in redaction does not know the extra names.
	if plain := in.Redacted(); plain.Headers[0] != "X-TENANT-SIG: s3cr3t" {
		t.Errorf("Redacted() = %q, want the extra header kept", plain.Headers[0])
	}
	if !r.IsSecretName("Cookie") || r.IsSecretName("X-Request-Id") {
		t.Error("IsSecretName: built-in names must stay secret and plain names plain")
	}
}
