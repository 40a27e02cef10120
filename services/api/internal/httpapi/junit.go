package httpapi

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"strconv"

	"github.com/barrage-dev/barrage/pkg/threshold"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// junitClass is the classname of every testcase of a JUnit report.
const junitClass = "barrage.thresholds"

// junitSuites is a JUnit XML report of one run: one testsuite named for
// the run, one testcase per threshold.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Name    string       `xml:"name,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	ID        string      `xml:"id,attr"`
	Cases     []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string `xml:"name,attr"`
	Classname string `xml:"classname,attr"`
	// Properties carry a confidence form's interval and verdict as
	// values a CI tool can read.
	Properties *junitProperties `xml:"properties"`
	Failure    *junitProblem    `xml:"failure"`
	Error      *junitProblem    `xml:"error"`
	// Skipped marks an inconclusive confidence form: neither passed nor
	// failed.
	Skipped *junitProblem `xml:"skipped"`
	// SystemOut carries a confidence form's estimate with its interval.
	SystemOut string `xml:"system-out,omitempty"`
}

type junitProperties struct {
	List []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// estimateProperties are a confidence form's figures: its verdict
// (pass, regression, inconclusive), level, ratio with its interval (when
// the baseline's figure is not 0), the measured seconds and, from a
// pooled baseline, the run-to-run spread.
func estimateProperties(o threshold.Outcome) *junitProperties {
	x := o.Estimate
	if x == nil {
		return nil
	}
	verdict := "pass"
	switch {
	case o.Inconclusive:
		verdict = "inconclusive"
	case !o.Pass:
		verdict = "regression"
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	p := &junitProperties{List: []junitProperty{{"verdict", verdict}, {"confidence", f(x.Confidence)}}}
	if x.Ratio > 0 {
		p.List = append(p.List, junitProperty{"ratio", f(x.Ratio)}, junitProperty{"ratio_low", f(x.RatioLow)},
			junitProperty{"ratio_high", f(x.RatioHigh)})
	}
	p.List = append(p.List, junitProperty{"margin_low", f(x.MarginLow)}, junitProperty{"margin_high", f(x.MarginHigh)},
		junitProperty{"seconds", strconv.Itoa(x.Seconds)})
	if x.SpreadRuns > 0 {
		p.List = append(p.List, junitProperty{"spread", f(x.Spread)}, junitProperty{"spread_runs", strconv.Itoa(x.SpreadRuns)})
	}
	return p
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// junitOut builds the JUnit report of a run with a result. Each threshold
// is a testcase: failed thresholds have a failure, thresholds that could
// not be evaluated (or a run that was not judged) an error. A testcase
// "run completed" stands for the run itself when it has no thresholds or
// its verdict is error (it failed or lost a shard).
func junitOut(run runs.Run, res runs.Result) junitSuites {
	suite := junitSuite{
		Name: run.Name, ID: run.ID.String(), Time: strconv.FormatFloat(res.Duration.Seconds(), 'f', 3, 64),
	}
	if !run.StartedAt.IsZero() {
		suite.Timestamp = run.StartedAt.UTC().Format("2006-01-02T15:04:05")
	}
	add := func(c junitCase) {
		c.Classname = junitClass
		suite.Cases = append(suite.Cases, c)
		if c.Failure != nil {
			suite.Failures++
		}
		if c.Error != nil {
			suite.Errors++
		}
		if c.Skipped != nil {
			suite.Skipped++
		}
	}
	for i, text := range run.Thresholds {
		if i >= len(run.ThresholdResults) {
			add(junitCase{Name: text, Error: &junitProblem{Message: fmt.Sprintf("not evaluated: the run is %s", run.Status)}})
			continue
		}
		add(outcomeCase(run.ThresholdResults[i]))
	}
	if len(run.Thresholds) == 0 || run.Verdict == runs.VerdictError {
		c := junitCase{Name: "run completed"}
		if run.Status != runs.Completed || run.Degraded {
			msg := fmt.Sprintf("the run is %s", run.Status)
			if run.Degraded {
				msg = fmt.Sprintf("the run is %s without %d of its %d shards", run.Status, res.LostShards, res.Shards+res.LostShards)
			}
			c.Error = &junitProblem{Message: msg, Text: run.Error}
		}
		add(c)
	}
	suite.Tests = len(suite.Cases)
	return junitSuites{Name: "barrage", Suites: []junitSuite{suite}}
}

// outcomeCase is the testcase of one evaluated threshold.
func outcomeCase(o threshold.Outcome) junitCase {
	c := junitCase{Name: o.Expression, SystemOut: o.Statement(), Properties: estimateProperties(o)}
	switch {
	case o.Error != "":
		c.Error = &junitProblem{Message: o.Error}
	case o.Inconclusive:
		c.Skipped = &junitProblem{Message: "inconclusive: " + o.Note, Text: o.Statement()}
	case !o.Pass && o.Estimate != nil:
		c.Failure = &junitProblem{Message: o.Statement(),
			Text: fmt.Sprintf("%s was %s; the threshold is %s", o.Metric, threshold.FormatValue(o.Observed, o.Unit), o.Expression)}
	case !o.Pass:
		c.Failure = &junitProblem{
			Message: fmt.Sprintf("observed %s, limit %s",
				threshold.FormatValue(o.Observed, o.Unit), threshold.FormatValue(o.Limit, o.Unit)),
			Text: fmt.Sprintf("%s was %s; the threshold is %s", o.Metric, threshold.FormatValue(o.Observed, o.Unit), o.Expression),
		}
	}
	return c
}

// xmlResponse writes a JUnit report as a 200 application/xml body.
type xmlResponse struct{ body junitSuites }

// VisitGetRunResultResponse implements GetRunResultResponseObject.
func (r xmlResponse) VisitGetRunResultResponse(w http.ResponseWriter) error {
	b, err := xml.MarshalIndent(r.body, "", "  ")
	if err != nil {
		return fmt.Errorf("encode junit: %w", err)
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(append([]byte(xml.Header), append(b, '\n')...))
	return err //nolint:wrapcheck // the client went away
}
