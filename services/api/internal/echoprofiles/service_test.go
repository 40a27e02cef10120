package echoprofiles

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

func TestHostPorts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		target string
		want   []string
	}{
		{"http://127.0.0.1:8080/echo?x=1", []string{"127.0.0.1:8080"}},
		{"http://Echo.Example:80/", []string{"echo.example:80"}},
		{"https://echo.example/", []string{"echo.example:443"}},
		{"http://localhost:9/", []string{"localhost:9", "127.0.0.1:9", "[::1]:9"}},
		{"tcp://10.0.0.1:7", []string{"10.0.0.1:7"}},
		{"tcp://10.0.0.1", nil},
		{"::bad", nil},
	}
	for _, tc := range tests {
		if got := hostPorts(tc.target); !slices.Equal(got, tc.want) {
			t.Errorf("hostPorts(%q) = %v, want %v", tc.target, got, tc.want)
		}
	}
}

func TestContentIsCheckedAsTheEchoWould(t *testing.T) {
	t.Parallel()
	s := NewService(Options{})
	tests := []struct {
		content, param string
	}{
		{"status=503:20", ""},
		{"status=503:20&delay=100ms:10", ""},
		{"status=abc", "status"},
		{"colour=red", "colour"},
		{"delay=forever", "delay"},
	}
	for _, tc := range tests {
		name, content := "p", tc.content
		err := s.apply(Input{Name: &name, Content: &content}, &Profile{})
		var e *apperr.Error
		switch {
		case tc.param == "" && err != nil:
			t.Errorf("%q: %v", tc.content, err)
		case tc.param == "":
		case !errors.As(err, &e) || e.Code != apperr.Invalid || len(e.Fields) != 1 || e.Fields[0].Field != "content" ||
			!strings.Contains(e.Fields[0].Message, `"`+tc.param+`"`):
			t.Errorf("%q: err = %#v, want invalid content naming %q", tc.content, err, tc.param)
		}
	}
}
