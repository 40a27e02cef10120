package httpclient

import (
	"context"
	"testing"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
	"github.com/barrage-dev/barrage/services/agent/internal/cannedhttp"
	"github.com/barrage-dev/barrage/services/agent/internal/request"
)

// TestLastWrite reports the rendered target of writes, and nothing for
// reads, for a templated URL, a fixed one and the entries of a mix.
func TestLastWrite(t *testing.T) {
	t.Parallel()
	url := "http://" + cannedhttp.Serve(t, "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n") + "/fixed?a=1"
	tests := []struct {
		name  string
		opts  Options
		want  []string // LastWrite after each of three requests; "" for nil
		entry []int    // with a mix, the entry of each request
	}{
		{name: "templated post", opts: Options{URL: url, Method: "POST", Targets: []*reqtemplate.Template{reqtemplate.MustParse("/post/{seq}", reqtemplate.Options{})}},
			want: []string{"/post/1", "/post/2", "/post/3"}},
		{name: "fixed put", opts: Options{URL: url, Method: "PUT"}, want: []string{"/fixed?a=1", "/fixed?a=1", "/fixed?a=1"}},
		{name: "templated get", opts: Options{URL: url, Targets: []*reqtemplate.Template{reqtemplate.MustParse("/get/{seq}", reqtemplate.Options{})}},
			want: []string{"", "", ""}},
		{name: "head", opts: Options{URL: url, Method: "HEAD"}, want: []string{"", "", ""}},
		{name: "mix", opts: Options{URL: url, Variants: []Variant{
			{Target: reqtemplate.MustParse("/read/{seq}", reqtemplate.Options{})},
			{Method: "DELETE", Target: reqtemplate.MustParse("/item/{seq}", reqtemplate.Options{})},
			{Method: "OPTIONS", Target: reqtemplate.Literal("/")},
		}}, entry: []int{1, 0, 2}, want: []string{"/item/1", "", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := mustClient(t, mustFactory(t, tt.opts))
			w := c.(request.WriteReporter)
			if got := w.LastWrite(); got != nil {
				t.Fatalf("before any request LastWrite = %q, want nil", got)
			}
			for i, want := range tt.want {
				var res request.Result
				if tt.entry != nil {
					res = c.(request.EntryClient).DoEntry(context.Background(), tt.entry[i])
				} else {
					res = c.Do(context.Background())
				}
				if res.Code != 201 {
					t.Fatalf("request %d: %+v", i, res)
				}
				got := w.LastWrite()
				if string(got) != want || (want == "") != (got == nil) {
					t.Errorf("request %d: LastWrite = %q, want %q", i, got, want)
				}
			}
		})
	}
}
