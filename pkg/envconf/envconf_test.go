package envconf

import (
	"strings"
	"testing"
	"time"
)

type settings struct {
	Addr    string        `env:"TEST_ADDR" envDefault:":80"`
	Timeout time.Duration `env:"TEST_TIMEOUT" envDefault:"1s"`
	Count   int           `env:"TEST_COUNT"`
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		environ []string
		want    settings
		err     string
	}{
		{name: "defaults", want: settings{Addr: ":80", Timeout: time.Second}},
		{name: "set", environ: []string{"TEST_ADDR=:9", "TEST_TIMEOUT=250ms", "TEST_COUNT=3", "OTHER=x=y"},
			want: settings{Addr: ":9", Timeout: 250 * time.Millisecond, Count: 3}},
		{name: "bad duration names the variable", environ: []string{"TEST_TIMEOUT=soon"}, err: `TEST_TIMEOUT="soon"`},
		{name: "two errors", environ: []string{"TEST_TIMEOUT=x", "TEST_COUNT=y"}, err: `TEST_COUNT="y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got settings
			err := Parse(&got, tt.environ)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse error = %v, want it to contain %s", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Parse = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
