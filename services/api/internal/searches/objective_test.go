package searches

import (
	"errors"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

func TestParseObjective(t *testing.T) {
	t.Parallel()
	terms, err := ParseObjective("  p(99) <  50ms and error_rate < 0.1%  ")
	if err != nil || len(terms) != 2 || canonical(terms) != "p(99) < 50ms and error_rate < 0.1%" {
		t.Fatalf("%v, %v (%s)", terms, err, canonical(terms))
	}
	for _, c := range []struct{ in, want string }{
		{"", "is required"},
		{"p(99) < 50ms and", "term 2"},
		{"p(99) < baseline * 1.1", "no baseline"},
		{"errors < 5 abort", "abort does not apply"},
		{"p(99) < 50", "term 1"},
		{strings.Repeat("qps > 1 and ", 10) + "qps > 1", "at most 10"},
	} {
		_, err := ParseObjective(c.in)
		var ae *apperr.Error
		if !errors.As(err, &ae) || ae.Code != apperr.Invalid || len(ae.Fields) != 1 || ae.Fields[0].Field != "objective" ||
			!strings.Contains(ae.Fields[0].Message, c.want) {
			t.Errorf("%q: %v, want Invalid on objective containing %q", c.in, err, c.want)
		}
	}
}
