package threshold

import (
	"errors"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src   string
		want  Expr
		canon string // String(); src when empty
		limit float64
	}{
		{src: "p(99) < 250ms", want: Expr{Stat: Percentile, P: 99, Op: Less, Value: 250, DurationUnit: "ms"}, limit: 250_000},
		{src: "p(50) <= 20ms", want: Expr{Stat: Percentile, P: 50, Op: LessEqual, Value: 20, DurationUnit: "ms"}, limit: 20_000},
		{src: "p(99.9) < 1s", want: Expr{Stat: Percentile, P: 99.9, Op: Less, Value: 1, DurationUnit: "s"}, limit: 1e6},
		{src: "p(0) >= 1us", want: Expr{Stat: Percentile, P: 0, Op: GreaterEqual, Value: 1, DurationUnit: "us"}, limit: 1},
		{src: "p(100) < 2m", want: Expr{Stat: Percentile, P: 100, Op: Less, Value: 2, DurationUnit: "m"}, limit: 120e6},
		{src: "max < 2s", want: Expr{Stat: Max, Op: Less, Value: 2, DurationUnit: "s"}, limit: 2e6},
		{src: "min > 500µs", want: Expr{Stat: Min, Op: Greater, Value: 500, DurationUnit: "µs"}, limit: 500},
		{src: "avg < 50ms", want: Expr{Stat: Avg, Op: Less, Value: 50, DurationUnit: "ms"}, limit: 50_000},
		{src: "stddev < 1.5ms", want: Expr{Stat: StdDev, Op: Less, Value: 1.5, DurationUnit: "ms"}, limit: 1500},
		{src: "error_rate < 0.1%", want: Expr{Stat: ErrorRate, Op: Less, Value: 0.1, Percent: true}, limit: 0.001},
		{src: "error_rate < 0.001", want: Expr{Stat: ErrorRate, Op: Less, Value: 0.001}, limit: 0.001},
		{src: "error_rate == 0", want: Expr{Stat: ErrorRate, Op: Equal, Value: 0}, limit: 0},
		{src: "error_rate <= 100%", want: Expr{Stat: ErrorRate, Op: LessEqual, Value: 100, Percent: true}, limit: 1},
		{src: "qps >= 495", want: Expr{Stat: QPS, Op: GreaterEqual, Value: 495}, limit: 495},
		{src: "error_rate < 1% abort", want: Expr{Stat: ErrorRate, Op: Less, Value: 1, Percent: true, Abort: true, AbortAfter: 100}, limit: 0.01},
		{src: "error_rate<1%  abort   after  500", canon: "error_rate < 1% abort after 500", want: Expr{Stat: ErrorRate, Op: Less, Value: 1, Percent: true, Abort: true, AbortAfter: 500}, limit: 0.01},
		{src: "status_5xx == 0 abort after 1", want: Expr{Stat: Status, Code: "5xx", Op: Equal, Value: 0, Abort: true, AbortAfter: 1}, limit: 0},
		{src: "errors < 10 abort after 100", canon: "errors < 10 abort", want: Expr{Stat: Errors, Op: Less, Value: 10, Abort: true, AbortAfter: 100}, limit: 10},
		{src: "count > 1000", want: Expr{Stat: Count, Op: Greater, Value: 1000}, limit: 1000},
		{src: "errors == 0", want: Expr{Stat: Errors, Op: Equal, Value: 0}, limit: 0},
		{src: "errors != 3", want: Expr{Stat: Errors, Op: NotEqual, Value: 3}, limit: 3},
		{src: "status_5xx == 0", want: Expr{Stat: Status, Code: "5xx", Op: Equal}, limit: 0},
		{src: "status_4xx < 10", want: Expr{Stat: Status, Code: "4xx", Op: Less, Value: 10}, limit: 10},
		{src: "status_2xx >= 100", want: Expr{Stat: Status, Code: "2xx", Op: GreaterEqual, Value: 100}, limit: 100},
		{src: "status_503 == 0", want: Expr{Stat: Status, Code: "503", Op: Equal}, limit: 0},
		{src: "response.p(99) < 250ms", want: Expr{Kind: Response, Stat: Percentile, P: 99, Op: Less, Value: 250, DurationUnit: "ms"}, limit: 250_000},
		{src: "service.p(99) < 1s", want: Expr{Kind: Service, Stat: Percentile, P: 99, Op: Less, Value: 1, DurationUnit: "s"}, limit: 1e6},
		{src: "lag.max < 10ms", want: Expr{Kind: Lag, Stat: Max, Op: Less, Value: 10, DurationUnit: "ms"}, limit: 10_000},
		{src: "p(99) < baseline * 1.10", want: Expr{Stat: Percentile, P: 99, Op: Less, Baseline: true, Factor: 1.1}, canon: "p(99) < baseline * 1.1"},
		{src: "qps >= baseline * 0.95", want: Expr{Stat: QPS, Op: GreaterEqual, Baseline: true, Factor: 0.95}},
		{src: "p(99) < baseline", want: Expr{Stat: Percentile, P: 99, Op: Less, Baseline: true, Factor: 1}},
		{src: "p(99) < baseline * 1", want: Expr{Stat: Percentile, P: 99, Op: Less, Baseline: true, Factor: 1}, canon: "p(99) < baseline"},
		{src: "  p( 99 )<250ms\t", want: Expr{Stat: Percentile, P: 99, Op: Less, Value: 250, DurationUnit: "ms"}, canon: "p(99) < 250ms", limit: 250_000},
		{src: "count>=007", want: Expr{Stat: Count, Op: GreaterEqual, Value: 7}, canon: "count >= 7", limit: 7},
		{src: "p(99) < baseline * 1.10 @ 95%", want: Expr{Stat: Percentile, P: 99, Op: Less, Baseline: true, Factor: 1.1, Confidence: 95}, canon: "p(99) < baseline * 1.1 @ 95%"},
		{src: "response.p(99.9)<=baseline@99.5%", want: Expr{Kind: Response, Stat: Percentile, P: 99.9, Op: LessEqual, Baseline: true, Factor: 1, Confidence: 99.5}, canon: "response.p(99.9) <= baseline @ 99.5%"},
		{src: "qps > baseline * 0.9 @ 90%", want: Expr{Stat: QPS, Op: Greater, Baseline: true, Factor: 0.9, Confidence: 90}},
		{src: "error_rate < baseline * 2 @ 95%", want: Expr{Stat: ErrorRate, Op: Less, Baseline: true, Factor: 2, Confidence: 95}},
		{src: "error_rate<baseline*2", want: Expr{Stat: ErrorRate, Op: Less, Baseline: true, Factor: 2}, canon: "error_rate < baseline * 2"},
		{src: `step("checkout").p(99) < 300ms`, want: Expr{Step: "checkout", Stat: Percentile, P: 99, Op: Less, Value: 300, DurationUnit: "ms"}, limit: 300_000},
		{src: `step("log in").service.max<1s`, want: Expr{Step: "log in", Kind: Service, Stat: Max, Op: Less, Value: 1, DurationUnit: "s"},
			canon: `step("log in").service.max < 1s`, limit: 1e6},
		{src: `step("a.b").error_rate < 1%`, want: Expr{Step: "a.b", Stat: ErrorRate, Op: Less, Value: 1, Percent: true}, limit: 0.01},
		{src: `step("x").status_5xx == 0`, want: Expr{Step: "x", Stat: Status, Code: "5xx", Op: Equal}, limit: 0},
		{src: `checks("status is 200") > 99.5%`, want: Expr{Stat: Checks, Check: "status is 200", Op: Greater, Value: 99.5, Percent: true}, limit: 0.995},
		{src: `checks("(json) id ok")>=0.95`, want: Expr{Stat: Checks, Check: "(json) id ok", Op: GreaterEqual, Value: 0.95}, canon: `checks("(json) id ok") >= 0.95`, limit: 0.95},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.src, err)
			}
			if got != tt.want {
				t.Fatalf("Parse(%q) = %+v, want %+v", tt.src, got, tt.want)
			}
			canon := tt.canon
			if canon == "" {
				canon = tt.src
			}
			if s := got.String(); s != canon {
				t.Errorf("String() = %q, want %q", s, canon)
			}
			if !got.Baseline && got.Limit() != tt.limit {
				t.Errorf("Limit() = %v, want %v", got.Limit(), tt.limit)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		pos  int
		want string // part of the message
	}{
		{src: "", pos: 1, want: "expected a metric"},
		{src: "p(99) < 250ms @ 95%", pos: 15, want: "applies only to a baseline form"},
		{src: "max < baseline @ 95%", pos: 16, want: "takes p(N), error_rate or qps"},
		{src: "p(99) == baseline @ 95%", pos: 19, want: "compares with <, <=, > or >="},
		{src: "p(99) < baseline @ 95", pos: 22, want: "expected % after the confidence level"},
		{src: "p(99) < baseline @ 100%", pos: 20, want: "from 50% to 99.9%"},
		{src: "p(99) < baseline @ 40%", pos: 20, want: "from 50% to 99.9%"},
		{src: "p(99) < baseline @", pos: 19, want: "expected a number"},
		{src: "p(99) < 1s abort", pos: 12, want: "only errors, error_rate and status_* thresholds of the whole run can abort"},
		{src: "error_rate < baseline * 2 abort", pos: 27, want: "a baseline threshold cannot abort"},
		{src: "error_rate < 1% abort after", pos: 28, want: "expected a number of requests from 1"},
		{src: "error_rate < 1% abort after 0", pos: 29, want: "expected a number of requests from 1"},
		{src: "error_rate < 1% abort after 5x", pos: 30, want: `unexpected "x" after the limit`},
		{src: `step(checkout).p(99) < 1s`, pos: 6, want: `expected a quoted name after step(`},
		{src: `step("checkout).p(99) < 1s`, pos: 6, want: "no closing double quote"},
		{src: `checks("a") > x`, pos: 15, want: "expected a share like 0.99 or 99.9%"},
		{src: `step(" ").p(99) < 1s`, pos: 7, want: "the name is blank"},
		{src: `step("a"`, pos: 9, want: "expected ) after the name"},
		{src: `step("a") p(99) < 1s`, pos: 10, want: "expected . and a metric after the step"},
		{src: `step("a").qps > 1`, pos: 11, want: "a step has no qps of its own"},
		{src: `step("a").p(99) < baseline`, pos: 19, want: "takes a fixed limit, not a baseline"},
		{src: `checks("a") > baseline * 0.9 @ 95%`, pos: 15, want: "takes a fixed limit, not a baseline"},
		{src: `step("a").errors > 1 abort`, pos: 22, want: "of the whole run can abort"},
		{src: `checks("a") < 2`, pos: 15, want: `checks("a") is a fraction from 0 to 1`},
		{src: `checks("a") < 1ms`, pos: 16, want: `unexpected "ms" after the limit`},
		{src: "error_rate < 1% abort now", pos: 23, want: `unexpected "now" after the limit`},
		{src: "   ", pos: 4, want: "expected a metric"},
		{src: "p(99) < 25xs", pos: 11, want: `expected a duration like 250ms: unknown unit "xs"`},
		{src: "p(99) < 250", pos: 12, want: "give a unit"},
		{src: "p(99) < ms", pos: 9, want: "expected a duration like 250ms"},
		{src: "p(99) <", pos: 8, want: "expected a limit"},
		{src: "p(99)", pos: 6, want: "expected an operator"},
		{src: "p(99) = 1ms", pos: 7, want: "use =="},
		{src: "p(99) ~ 1ms", pos: 7, want: "expected an operator"},
		{src: "p99 < 1ms", pos: 1, want: `unknown metric "p99"`},
		{src: "p(101) < 1ms", pos: 3, want: "from 0 to 100"},
		{src: "p() < 1ms", pos: 3, want: "expected a number"},
		{src: "p(99 < 1ms", pos: 6, want: "expected )"},
		{src: "p(9.) < 1ms", pos: 5, want: "digits after the decimal point"},
		{src: "p(-1) < 1ms", pos: 3, want: "expected a number"},
		{src: "latency < 1ms", pos: 1, want: `unknown metric "latency"`},
		{src: "request.p(99) < 1ms", pos: 1, want: `unknown latency kind "request"`},
		{src: "response.count > 1", pos: 10, want: "count is not a latency"},
		{src: "response. < 1ms", pos: 10, want: "expected a metric after the latency kind"},
		{src: "error_rate < 5", pos: 14, want: "fraction from 0 to 1"},
		{src: "error_rate < 101%", pos: 14, want: "at most 100%"},
		{src: "error_rate < x", pos: 14, want: "expected an error rate"},
		{src: "qps >= 10ms", pos: 10, want: "qps takes a plain number"},
		{src: "count > many", pos: 9, want: "expected a number for count"},
		{src: "status_5x == 0", pos: 8, want: "status code like 503"},
		{src: "status_600x == 0", pos: 8, want: "status code like 503"},
		{src: "status_099 == 0", pos: 8, want: "status code like 503"},
		{src: "p(99) < 1ms extra", pos: 13, want: `unexpected "extra"`},
		{src: "p(99) < baseline * ", pos: 20, want: "expected a number"},
		{src: "p(99) < baseline + 1", pos: 18, want: `unexpected "+ 1"`},
		{src: "P(99) < 1ms", pos: 1, want: "expected a metric"},
		{src: "µ < 1ms", pos: 1, want: "expected a metric"},
		{src: "min < 5µx", pos: 8, want: `unknown unit "µx"`},
		{src: "max < " + strings.Repeat("9", 500) + "s", pos: 1, want: "at most 500 bytes"},
		{src: "max < " + strings.Repeat("9", 305) + "m", pos: 7, want: "out of range"},
		{src: "count > " + strings.Repeat("9", 400), pos: 9, want: "out of range"},
		{src: "p(99) <= baseline x", pos: 19, want: `unexpected "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.src, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(tt.src)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q) error = %v, want a *SyntaxError", tt.src, err)
			}
			if se.Pos != tt.pos || !strings.Contains(se.Msg, tt.want) {
				t.Errorf("Parse(%q) = %v; want at %d: ...%s...", tt.src, err, tt.pos, tt.want)
			}
			if !strings.HasPrefix(err.Error(), "at ") {
				t.Errorf("Error() = %q, want it to start with the position", err.Error())
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"p(99) < 250ms", "p(99.9) < 1s", "error_rate < 0.1%", "qps >= baseline * 0.95", "status_5xx == 0",
		"response.p(99) < 250ms", "lag.stddev != 2µs", "count>=7", "p(99) < 25xs", "error_rate <= 1",
		"error_rate < 1% abort after 500", "status_503 == 0 abort", "p(99) < baseline * 1.10 @ 95%", "qps>=baseline@99.9%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Pos < 1 {
				t.Fatalf("Parse(%q) error %v is not a positioned SyntaxError", src, err)
			}
			return
		}
		s := e.String()
		if len(s) > MaxLength { // String adds blanks around the operator
			return
		}
		again, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) = %+v, but its String %q does not parse: %v", src, e, s, err)
		}
		if again != e {
			t.Fatalf("Parse(%q) = %+v; re-parsed from %q = %+v", src, e, s, again)
		}
		_ = e.Eval(Observed{}, nil)
	})
}
