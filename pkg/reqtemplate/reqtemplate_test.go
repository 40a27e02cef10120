package reqtemplate_test

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/reqtemplate"
)

func fixedRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		src     string
		aliases bool
		seq     uint64
		want    string // regexp, anchored
		dynamic bool
	}{
		{"static", "/plain/path?q=1", true, 7, `/plain/path\?q=1`, false},
		{"seq", "/post/{seq}", false, 42, `/post/42`, true},
		{"seq padded", "/post/{seq:5}", false, 42, `/post/00042`, true},
		{"seq wider than pad", "/p/{seq:2}", false, 12345, `/p/12345`, true},
		{"rand", "/r/{rand:10}", false, 1, `/r/[0-9]`, true},
		{"alpha", "/a/{alpha:8}", false, 1, `/a/[a-zA-Z]{8}`, true},
		{"uuid", "/u/{uuid}", false, 1, `/u/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}`, true},
		{"json braces are literal", `{"id":{seq},"name":"{alpha:3}","x":{"y":1}}`, false, 9, `\{"id":9,"name":"[a-zA-Z]{3}","x":\{"y":1\}\}`, true},
		{"unknown names are literal", "/{random}/{sequence}/{}", false, 1, `/\{random\}/\{sequence\}/\{\}`, false},
		{"goader X", "/post/XXXXX", true, 42, `/post/00042`, true},
		{"goader X wraps like goader", "/post/XXX", true, 12345, `/post/345`, true},
		{"goader N", "/n/NNNN?x=1", true, 1, `/n/[0-9]{4}\?x=1`, true},
		{"goader R", "/r/RRRRRR", true, 1, `/r/[a-zA-Z]{6}`, true},
		{"goader needs whole words", "/CONNECTION/XXXa/aNN/X/NN1", true, 1, `/CONNECTION/XXXa/aNN/X/NN1`, false},
		{"goader off", "/post/XXXXX", false, 1, `/post/XXXXX`, false},
		{"several", "/{seq}/{seq:3}/XX", true, 5, `/5/005/05`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tpl, err := reqtemplate.Parse(tt.src, reqtemplate.Options{Aliases: tt.aliases})
			if err != nil {
				t.Fatal(err)
			}
			if tpl.Dynamic() != tt.dynamic {
				t.Errorf("Dynamic() = %v, want %v", tpl.Dynamic(), tt.dynamic)
			}
			got := string(tpl.Append(nil, tt.seq, fixedRand()))
			if !regexp.MustCompile(`^` + tt.want + `$`).MatchString(got) {
				t.Errorf("rendered %q, want /%s/", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"/{seq:0}", "/{seq:21}", "/{seq:x}", "/{rand}", "/{rand:0}", "/{rand:-1}", "/{alpha}",
		"/{alpha:1025}", "/{uuid:4}", "/{seq", "/{rand:10", "/" + strings.Repeat("X", 20),
	} {
		_, err := reqtemplate.Parse(src, reqtemplate.Options{Aliases: true})
		if !errors.Is(err, reqtemplate.ErrSyntax) {
			t.Errorf("Parse(%q) = %v, want ErrSyntax", src, err)
		}
	}
	many := strings.Repeat("{seq}", reqtemplate.MaxSegments+1)
	if _, err := reqtemplate.Parse(many, reqtemplate.Options{}); !errors.Is(err, reqtemplate.ErrSyntax) {
		t.Errorf("%d placeholders: %v, want ErrSyntax", reqtemplate.MaxSegments+1, err)
	}
}

func TestRandomPlaceholdersVary(t *testing.T) {
	t.Parallel()
	tpl := reqtemplate.MustParse("{rand:1000000}-{alpha:6}-{uuid}-NNNNNN", reqtemplate.Options{Aliases: true})
	r := reqtemplate.NewRand()
	seen := map[string]bool{}
	for range 1000 {
		seen[string(tpl.Append(nil, 1, r))] = true
	}
	if len(seen) != 1000 {
		t.Errorf("1000 renders gave %d distinct values", len(seen))
	}
	below := reqtemplate.MustParse("{rand:3}", reqtemplate.Options{})
	counts := map[string]int{}
	for range 3000 {
		counts[string(below.Append(nil, 1, r))]++
	}
	for _, v := range []string{"0", "1", "2"} {
		if counts[v] < 800 || counts[v] > 1200 {
			t.Errorf("{rand:3} gave %q %d times of 3000, want about 1000 (%v)", v, counts[v], counts)
		}
	}
	if len(counts) != 3 {
		t.Errorf("{rand:3} gave values %v, want 0, 1, 2", counts)
	}
}

func TestSeq(t *testing.T) {
	t.Parallel()
	alone := reqtemplate.NewSeq(0, 0)
	for want := uint64(1); want <= 3; want++ {
		if got := alone.Next(); got != want {
			t.Fatalf("standalone Next() = %d, want %d", got, want)
		}
	}
	// Three shards of one run: disjoint, and together 1..30.
	seen := map[uint64]int{}
	for shard := range uint64(3) {
		s := reqtemplate.NewSeq(shard+1, 3)
		for range 10 {
			seen[s.Next()]++
		}
	}
	for v := uint64(1); v <= 30; v++ {
		if seen[v] != 1 {
			t.Errorf("value %d handed out %d times", v, seen[v])
		}
	}
}

func TestSplitURL(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, auth, target string }{
		{"http://h:8080/post/{seq}?x={rand:5}#frag", "http://h:8080", "/post/{seq}?x={rand:5}"},
		{"http://h", "http://h", "/"},
		{"http://h?q={seq}", "http://h", "/?q={seq}"},
		{"https://u:p@h/a", "https://u:p@h", "/a"},
	}
	for _, tt := range tests {
		a, tg := reqtemplate.SplitURL(tt.raw)
		if a != tt.auth || tg != tt.target {
			t.Errorf("SplitURL(%q) = %q, %q; want %q, %q", tt.raw, a, tg, tt.auth, tt.target)
		}
	}
}

func TestAppendDoesNotAllocate(t *testing.T) {
	tpl := reqtemplate.MustParse("/post/{seq:8}/{rand:1000}/{alpha:8}/{uuid}/XXXX/NNNN/RRRR", reqtemplate.Options{Aliases: true})
	r := reqtemplate.NewRand()
	seq := reqtemplate.NewSeq(1, 1)
	buf := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(1000, func() {
		buf = tpl.Append(buf[:0], seq.Next(), r)
	})
	if allocs != 0 {
		t.Errorf("Append allocates %.1f times per render, want 0", allocs)
	}
}

func BenchmarkAppend(b *testing.B) {
	tpl := reqtemplate.MustParse("/post/{seq:8}?r={rand:1000}&id={uuid}", reqtemplate.Options{Aliases: true})
	r := reqtemplate.NewRand()
	seq := reqtemplate.NewSeq(1, 1)
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = tpl.Append(buf[:0], seq.Next(), r)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"/post/{seq:5}", "{rand:10}{alpha:3}{uuid}", "/XXXX/NN/RRR", "{seq", "{rand:0}", `{"a":{seq}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tpl, err := reqtemplate.Parse(s, reqtemplate.Options{Aliases: true})
		if err != nil {
			return
		}
		out := tpl.Append(nil, 123, reqtemplate.NewRand())
		if !tpl.Dynamic() && string(out) != s {
			t.Fatalf("static template %q rendered %q", s, out)
		}
	})
}
