package live

import "testing"

func TestParseCursor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Cursor
		ok   bool
	}{
		{"0.0", Cursor{0, 0, true}, true},
		{"12.3", Cursor{12, 3, true}, true},
		{"12", Cursor{}, false},
		{"-1.0", Cursor{}, false},
		{"1.x", Cursor{}, false},
		{"", Cursor{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseCursor(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseCursor(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && got.String() != tt.in {
			t.Errorf("cursor %q renders as %q", tt.in, got.String())
		}
	}
}
