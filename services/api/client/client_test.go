package client

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestProblemError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		status     int
		want       string
		fields     []string
	}{
		{"validation", `{"type":"https://barrage.dev/problems/validation","title":"Invalid request","status":422,` +
			`"detail":"the request has invalid fields","errors":[{"field":"spec.qps","message":"must be at least 0"}]}`,
			422, "the API answered 422 Invalid request: the request has invalid fields", []string{"spec.qps: must be at least 0"}},
		{"no detail", `{"type":"https://barrage.dev/problems/not-found","title":"Not found","status":404}`,
			404, "the API answered 404 Not found", nil},
		{"not problem details", `<html>bad gateway</html>`, 502, "the API answered 502", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckStatus(tt.status, []byte(tt.body))
			var pe *ProblemError
			if !errors.As(err, &pe) {
				t.Fatalf("CheckStatus(%d) = %v, want a *ProblemError", tt.status, err)
			}
			if pe.Error() != tt.want || pe.StatusCode != tt.status {
				t.Errorf("error = %d %q, want %d %q", pe.StatusCode, pe.Error(), tt.status, tt.want)
			}
			if strings.Join(pe.Fields(), "|") != strings.Join(tt.fields, "|") {
				t.Errorf("fields = %q, want %q", pe.Fields(), tt.fields)
			}
		})
	}
	if err := CheckStatus(http.StatusOK, []byte(`{}`)); err != nil {
		t.Errorf("CheckStatus(200) = %v, want nil", err)
	}
}

func TestNewSendsTokenUnderBasePath(t *testing.T) {
	t.Parallel()
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Method + " " + r.URL.Path + " " + r.Header.Get("Authorization")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"items":[]}`))
	}))
	defer srv.Close()
	c, err := New(srv.URL+"/", "brg_secret")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.ListAgents(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page AgentList
	if _, err := Decode(resp, &page); err != nil {
		t.Fatal(err)
	}
	if want := "GET /api/v1/agents Bearer brg_secret"; got != want {
		t.Errorf("request = %q, want %q", got, want)
	}
	if page.Items == nil || len(page.Items) != 0 {
		t.Errorf("page = %+v, want an empty list", page)
	}
}
