package fortiojson

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
)

// mustDecodeMap decodes a JSON object.
func mustDecodeMap(tb testing.TB, data []byte) map[string]any {
	tb.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		tb.Fatalf("decode %s: %v", data, err)
	}
	return m
}

func TestRedactFortioSample(t *testing.T) {
	t.Parallel()
	in := mustReadFile(t, "http_credentials.json")
	out, err := Redact(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"alice:pw", "token=zz"} {
		if bytes.Contains(out, []byte(secret)) {
			t.Errorf("output still holds %q", secret)
		}
	}
	if !reflect.DeepEqual(keysOf(t, in), keysOf(t, out)) {
		t.Errorf("key order changed")
	}
	before, after := mustDecodeMap(t, in), mustDecodeMap(t, out)
	if after["UserCredentials"] != "REDACTED" || after["URL"] != "http://127.0.0.1:18099/echo?delay=1ms&token=REDACTED" {
		t.Errorf("UserCredentials %v, URL %v", after["UserCredentials"], after["URL"])
	}
	delete(before, "UserCredentials")
	delete(before, "URL")
	delete(after, "UserCredentials")
	delete(after, "URL")
	if !reflect.DeepEqual(before, after) {
		t.Errorf("other keys changed")
	}
	// Only the two values change: the output is the input with two splices.
	if len(in)-len(out) != len(`"alice:pw"`)-len(`"REDACTED"`)+len("zz")-len("REDACTED") {
		t.Errorf("output is %d bytes, input %d", len(out), len(in))
	}
	again, err := Redact(out)
	if err != nil || &again[0] != &out[0] {
		t.Errorf("redacting twice changed the document (%v)", err)
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
	}{
		{"nothing", `{"URL": "http://h/?a=1", "UserCredentials": ""}`, ""},
		{"null creds", `{ "UserCredentials" : null }`, ""},
		{"creds", `{"a": 1, "UserCredentials":  "u:p" , "b": [1]}`, `{"a": 1, "UserCredentials":  "REDACTED" , "b": [1]}`},
		{"creds any case, twice", `{"usercredentials": "x", "UserCredentials": 5}`, `{"usercredentials": "REDACTED", "UserCredentials": "REDACTED"}`},
		{"url userinfo", `{"URL": "https://me:pass@h/p?session=s1&q=2#f"}`, `{"URL": "https://REDACTED:REDACTED@h/p?session=REDACTED\u0026q=2#f"}`},
		{"destination", `{"Destination": "grpc://h:1/?auth=abc"}`, `{"Destination": "grpc://h:1/?auth=REDACTED"}`},
		{"url escaped", `{"URL": "http://h/?token=\u003cx\u003e"}`, `{"URL": "http://h/?token=REDACTED"}`},
		{"headers map", `{"Headers": {"Authorization": "Bearer x", "Accept": "*/*", "Cookie": ["a=1", "b=2"], "X-Api-Key": null}}`,
			`{"Headers": {"Authorization": "REDACTED", "Accept": "*/*", "Cookie": ["REDACTED", "REDACTED"], "X-Api-Key": null}}`},
		{"nested extra headers", `{"Options": [{"ExtraHeaders": {"x-auth-token": 1}}], "Headers": "not a map"}`,
			`{"Options": [{"ExtraHeaders": {"x-auth-token": "REDACTED"}}], "Headers": "not a map"}`},
		{"header lines", `{"Headers": ["Authorization: Bearer x", "Accept: */*", "Cookie: REDACTED"]}`,
			`{"Headers": ["Authorization: REDACTED", "Accept: */*", "Cookie: REDACTED"]}`},
		{"header already redacted", `{"Headers": {"Cookie": ["REDACTED"]}}`, ""},
		{"secret name outside headers", `{"Key": "k", "Password": "p"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out, err := Redact([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if string(out) != want {
				t.Fatalf("Redact =\n%s\nwant\n%s", out, want)
			}
			if !json.Valid(out) {
				t.Fatalf("output is not JSON")
			}
		})
	}
}

func TestRedactDeepHeadersIgnored(t *testing.T) {
	t.Parallel()
	in := `{"a":` + strings.Repeat(`[`, maxRedactDepth+2) + `{"Headers": {"Cookie": "c"}}` + strings.Repeat(`]`, maxRedactDepth+2) + `}`
	out, err := Redact([]byte(in))
	if err != nil || string(out) != in {
		t.Fatalf("Redact = %s, %v", out, err)
	}
}

func TestRedactErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `[]`, `"x"`, `{`, `{} {}`, `{"a":` + strings.Repeat(" ", MaxDocumentBytes) + `1}`} {
		_, err := Redact([]byte(in))
		var fe *FieldError
		if !errors.As(err, &fe) {
			t.Errorf("Redact(%.20q) error = %v, want a *FieldError", in, err)
		}
	}
}

func TestRedactWithExtraNames(t *testing.T) {
	t.Parallel()
	doc := []byte(`{"URL":"http://h/?sig=abc&x=1","Headers":{"X-Tenant-Sig":["s3cr3t"],"Accept":["*/*"]},` +
		`"RunnerOptions":{"ExtraHeaders":["x-tenant-sig: s3cr3t2","Via: 1"]}}`)
	want := `{"URL":"http://h/?sig=REDACTED\u0026x=1","Headers":{"X-Tenant-Sig":["REDACTED"],"Accept":["*/*"]},` +
		`"RunnerOptions":{"ExtraHeaders":["x-tenant-sig: REDACTED","Via: 1"]}}`
	got, err := RedactWith(doc, spec.NewRedactor([]string{"X-Tenant-Sig", "sig"}))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("RedactWith =\n%s\nwant\n%s", got, want)
	}
	if plain, err := Redact(doc); err != nil || !bytes.Contains(plain, []byte("s3cr3t2")) {
		t.Errorf("Redact without the names = %s, %v; want the extra header kept", plain, err)
	}
}
