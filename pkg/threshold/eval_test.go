package threshold

import (
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/hist"
)

// mustHist returns a histogram with the values (microseconds) recorded.
func mustHist(tb testing.TB, values ...int64) *hist.Histogram {
	tb.Helper()
	h := hist.New()
	for _, v := range values {
		h.RecordMicros(v)
	}
	return h
}

// mustParse parses src or fails the test.
func mustParse(tb testing.TB, src string) Expr {
	tb.Helper()
	e, err := Parse(src)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", src, err)
	}
	return e
}

func TestEval(t *testing.T) {
	t.Parallel()
	// 100 requests: response 10..1000 µs, service 1..100 µs, lag all 10 µs
	// (below 2048 µs, where the histogram keeps every value exactly).
	var resp, svc, lag []int64
	for i := int64(1); i <= 100; i++ {
		resp, svc, lag = append(resp, i*10), append(svc, i), append(lag, 10)
	}
	obs := Observed{
		Count: 100, Errors: 2, QPS: 50,
		Codes:    map[string]int64{"200": 90, "201": 5, "404": 1, "503": 2, "-1": 2},
		Response: mustHist(t, resp...), Service: mustHist(t, svc...), Lag: mustHist(t, lag...), Primary: Response,
	}
	closed := obs
	closed.Primary = Service
	// A scenario run: its "login" step had 40 requests, 4 of them errors
	// (2 without a response), 10 to 400 µs; its checks ran on the
	// responses of the steps that have them.
	var loginResp []int64
	for i := int64(1); i <= 40; i++ {
		loginResp = append(loginResp, i*10)
	}
	scen := obs
	scen.Steps = map[string]*Observed{"login": {Count: 40, Errors: 4, Codes: map[string]int64{"200": 36, "503": 2, "-1": 2},
		Response: mustHist(t, loginResp...), Service: mustHist(t, 5), Primary: Response}}
	scen.Checks = map[string]CheckCount{"status is 200": {Evaluated: 38, Failed: 2}, "never": {}}
	base := obs
	base.QPS = 40
	base.Response = mustHist(t, 500)
	tests := []struct {
		name     string
		src      string
		obs      Observed
		base     *Observed
		metric   string
		observed float64
		limit    float64
		pass     bool
		err      string
	}{
		{name: "count equal limit fails <", src: "count < 100", obs: obs, metric: "count", observed: 100, limit: 100},
		{name: "count equal limit passes <=", src: "count <= 100", obs: obs, metric: "count", observed: 100, limit: 100, pass: true},
		{name: "count ==", src: "count == 100", obs: obs, metric: "count", observed: 100, limit: 100, pass: true},
		{name: "errors !=", src: "errors != 2", obs: obs, metric: "errors", observed: 2, limit: 2},
		{name: "error rate percent at limit", src: "error_rate <= 2%", obs: obs, metric: "error_rate", observed: 0.02, limit: 0.02, pass: true},
		{name: "error rate fraction over", src: "error_rate < 0.01", obs: obs, metric: "error_rate", observed: 0.02, limit: 0.01},
		{name: "qps", src: "qps >= 50", obs: obs, metric: "qps", observed: 50, limit: 50, pass: true},
		{name: "5xx class", src: "status_5xx == 0", obs: obs, metric: "status_5xx", observed: 2, limit: 0},
		{name: "2xx class", src: "status_2xx >= 95", obs: obs, metric: "status_2xx", observed: 95, limit: 95, pass: true},
		{name: "one code", src: "status_404 <= 1", obs: obs, metric: "status_404", observed: 1, limit: 1, pass: true},
		{name: "absent code", src: "status_500 == 0", obs: obs, metric: "status_500", observed: 0, limit: 0, pass: true},
		{name: "primary response p99", src: "p(99) < 990us", obs: obs, metric: "response.p(99)", observed: 990, limit: 990},
		{name: "primary response p99 <=", src: "p(99) <= 0.99ms", obs: obs, metric: "response.p(99)", observed: 990, limit: 990, pass: true},
		{name: "primary service when closed", src: "p(50) == 50us", obs: closed, metric: "service.p(50)", observed: 50, limit: 50, pass: true},
		{name: "explicit service", src: "service.max < 1ms", obs: obs, metric: "service.max", observed: 100, limit: 1000, pass: true},
		{name: "lag min", src: "lag.min == 10us", obs: obs, metric: "lag.min", observed: 10, limit: 10, pass: true},
		{name: "max at limit", src: "max < 0.001s", obs: obs, metric: "response.max", observed: 1000, limit: 1000},
		{name: "min", src: "min >= 10us", obs: obs, metric: "response.min", observed: 10, limit: 10, pass: true},
		{name: "avg", src: "service.avg < 51us", obs: obs, metric: "service.avg", observed: 50.5, limit: 51, pass: true},
		{name: "stddev of equal values", src: "lag.stddev == 0us", obs: obs, metric: "lag.stddev", observed: 0, limit: 0, pass: true},
		{name: "baseline factor", src: "p(99) < baseline * 2", obs: obs, base: &base, metric: "response.p(99)", observed: 990, limit: 1000, pass: true},
		{name: "baseline plain regression", src: "p(99) < baseline", obs: obs, base: &base, metric: "response.p(99)", observed: 990, limit: 500},
		{name: "baseline qps", src: "qps >= baseline * 1.25", obs: obs, base: &base, metric: "qps", observed: 50, limit: 50, pass: true},
		{name: "no baseline", src: "qps >= baseline", obs: obs, metric: "qps", observed: 50, err: ErrNoBaseline},
		{name: "baseline without latency", src: "lag.p(99) < baseline", obs: obs, base: &Observed{Primary: Response}, metric: "lag.p(99)", observed: 10, err: "baseline: no lag latency recorded"},
		{name: "no requests error rate", src: "error_rate == 0", obs: Observed{}, metric: "error_rate", err: "no requests completed"},
		{name: "no latency", src: "p(99) < 1s", obs: Observed{Primary: Service}, metric: "service.p(99)", err: "no service latency recorded"},
		{name: "count of empty run", src: "count > 0", obs: Observed{}, metric: "count"},
		{name: "step p99", src: `step("login").p(99) <= 400us`, obs: scen, metric: `step("login").response.p(99)`, observed: 400, limit: 400, pass: true},
		{name: "step service max", src: `step("login").service.max < 1ms`, obs: scen, metric: `step("login").service.max`, observed: 5, limit: 1000, pass: true},
		{name: "step count", src: `step("login").count == 40`, obs: scen, metric: `step("login").count`, observed: 40, limit: 40, pass: true},
		{name: "step error rate", src: `step("login").error_rate < 5%`, obs: scen, metric: `step("login").error_rate`, observed: 0.1, limit: 0.05},
		{name: "step 5xx", src: `step("login").status_5xx == 2`, obs: scen, metric: `step("login").status_5xx`, observed: 2, limit: 2, pass: true},
		{name: "checks", src: `checks("status is 200") >= 95%`, obs: scen, metric: `checks("status is 200")`, observed: 0.9473684210526316, limit: 0.95},
		{name: "checks pass", src: `checks("status is 200") > 0.9`, obs: scen, metric: `checks("status is 200")`, observed: 0.9473684210526316, limit: 0.9, pass: true},
		{name: "unknown step", src: `step("nope").count > 0`, obs: scen, metric: `step("nope").count`, err: `the run's result has no step named "nope"`},
		{name: "step of a plain run", src: `step("login").count > 0`, obs: obs, metric: `step("login").count`, err: `no step named "login"`},
		{name: "check never evaluated", src: `checks("never") > 0`, obs: scen, metric: `checks("never")`, err: `no response was checked by a check named "never"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := mustParse(t, tt.src)
			got := e.Eval(tt.obs, tt.base)
			if got.Error != "" && tt.err == "" || tt.err != "" && !strings.Contains(got.Error, tt.err) {
				t.Fatalf("Eval(%q).Error = %q, want %q", tt.src, got.Error, tt.err)
			}
			if got.Metric != tt.metric || got.Observed != tt.observed || got.Pass != tt.pass {
				t.Errorf("Eval(%q) = %+v; want metric %s observed %v pass %v", tt.src, got, tt.metric, tt.observed, tt.pass)
			}
			if tt.err == "" && got.Limit != tt.limit {
				t.Errorf("Eval(%q).Limit = %v, want %v", tt.src, got.Limit, tt.limit)
			}
			if got.Expression != e.String() {
				t.Errorf("Expression = %q, want %q", got.Expression, e.String())
			}
		})
	}
}

func TestFormatValue(t *testing.T) {
	t.Parallel()
	tests := []struct {
		v    float64
		u    Unit
		want string
	}{
		{23_400, Micros, "23.4ms"},
		{1000, Micros, "1ms"},
		{999, Micros, "999us"},
		{2_500_000, Micros, "2.5s"},
		{0.001, Ratio, "0.1%"},
		{1_234_567, Number, "1234567"},
		{49.876, Number, "49.88"},
	}
	for _, tt := range tests {
		if got := FormatValue(tt.v, tt.u); got != tt.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", tt.v, tt.u, got, tt.want)
		}
	}
}
