package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/gin-gonic/gin"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// validator checks requests against the OpenAPI document before they reach
// a handler: parameters, enums, formats, bounds, required and unknown
// fields. It answers with field-level problems, so the contract, not
// handler code, defines what is well-formed.
type validator struct {
	routes  map[string]*routers.Route // "GET /api/v1/runs/:run" → operation
	options *openapi3filter.Options
}

// newValidator loads doc and indexes its operations by the gin route they
// are registered under (base + path with {x} → :x).
func newValidator(doc []byte, base string) (*validator, error) {
	loader := openapi3.NewLoader()
	spec, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, fmt.Errorf("load openapi document: %w", err)
	}
	if err := spec.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapi document is invalid: %w", err)
	}
	// The document is OpenAPI 3.1 but its schemas keep to the subset that
	// 3.0 shares (no type arrays, const, prefixItems, ...). For 3.1 documents
	// kin-openapi compiles a JSON Schema 2020-12 validator on every request
	// (about 1.3 ms of CPU per POST /runs); validating with its 3.0 schema
	// walker gives the same verdicts for this subset at a fraction of the cost.
	spec.OpenAPI = "3.0.3"
	v := &validator{
		routes: map[string]*routers.Route{},
		options: &openapi3filter.Options{
			MultiError:         true,
			AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, // auth middleware runs first
		},
	}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			route := &routers.Route{Spec: spec, Path: path, PathItem: item, Method: method, Operation: op}
			v.routes[method+" "+base+ginPath(path)] = route
		}
	}
	return v, nil
}

// ginPath turns /runs/{run} into /runs/:run.
func ginPath(p string) string {
	return pathParam().ReplaceAllString(p, ":$1")
}

// pathParam matches an OpenAPI path template parameter.
func pathParam() *regexp.Regexp { return regexp.MustCompile(`\{([^}]+)\}`) }

// middleware validates each request of a documented route.
func (v *validator) middleware(c *gin.Context) {
	route, ok := v.routes[c.Request.Method+" "+c.FullPath()]
	if !ok {
		c.Next()
		return
	}
	params := make(map[string]string, len(c.Params))
	for _, p := range c.Params {
		params[p.Key] = p.Value
	}
	in := &openapi3filter.RequestValidationInput{Request: c.Request, PathParams: params, Route: route, Options: v.options}
	if err := openapi3filter.ValidateRequest(c.Request.Context(), in); err != nil {
		c.Error(requestProblem(err)) //nolint:errcheck // gin.Context.Error only records the error
		c.Abort()
		return
	}
	c.Next()
}

// requestProblem turns the validator's errors into one domain error.
func requestProblem(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return tooBig
	}
	var fields []apperr.FieldError
	var errs openapi3.MultiError
	if !errors.As(err, &errs) {
		errs = openapi3.MultiError{err}
	}
	for _, one := range errs {
		var re *openapi3filter.RequestError
		if !errors.As(one, &re) {
			fields = append(fields, apperr.FieldError{Message: one.Error()})
			continue
		}
		var pe *openapi3filter.ParseError
		if re.Parameter == nil && errors.As(re.Err, &pe) {
			return apperr.New(apperr.BadRequest, "the request body is not valid JSON: %v", pe.Unwrap())
		}
		if re.Parameter == nil && re.Err == nil && strings.Contains(re.Reason, "must be") {
			return apperr.New(apperr.BadRequest, "%s", re.Reason)
		}
		fields = append(fields, requestFields(re)...)
	}
	return &apperr.Error{Code: apperr.Invalid, Detail: "the request has invalid fields", Fields: fields}
}

// requestFields names the fields at fault in one request error.
func requestFields(re *openapi3filter.RequestError) []apperr.FieldError {
	prefix := ""
	if re.Parameter != nil {
		prefix = re.Parameter.Name
	}
	var schemaErrs []*openapi3.SchemaError
	var errs openapi3.MultiError
	if errors.As(re.Err, &errs) {
		for _, e := range errs {
			var se *openapi3.SchemaError
			if errors.As(e, &se) {
				schemaErrs = append(schemaErrs, se)
			}
		}
	} else if se := (*openapi3.SchemaError)(nil); errors.As(re.Err, &se) {
		schemaErrs = append(schemaErrs, se)
	}
	if len(schemaErrs) == 0 {
		msg := re.Reason
		if re.Err != nil {
			msg = re.Err.Error()
		}
		if prefix == "" && re.RequestBody != nil && re.Err == nil {
			msg = "the request body is required"
		}
		return []apperr.FieldError{{Field: prefix, Message: msg}}
	}
	out := make([]apperr.FieldError, 0, len(schemaErrs))
	for _, se := range schemaErrs {
		out = append(out, schemaField(prefix, se))
	}
	return out
}

// schemaField names the field of one schema error: unknown and missing
// properties are reported on the property itself.
func schemaField(prefix string, se *openapi3.SchemaError) apperr.FieldError {
	path := se.JSONPointer()
	msg := cleanReason(se.Reason)
	if name, ok := quotedProperty(msg, " is unsupported"); ok {
		path, msg = append(path, name), "unknown field"
	} else if name, ok := quotedProperty(msg, " is missing"); ok {
		// kin-openapi already ends the path of a missing property with its name.
		if len(path) == 0 || path[len(path)-1] != name {
			path = append(path, name)
		}
		msg = "is required"
	}
	field := prefix
	for _, p := range path {
		if field != "" && !isIndex(p) {
			field += "."
		}
		if isIndex(p) {
			p = "[" + p + "]"
		}
		field += p
	}
	return apperr.FieldError{Field: field, Message: msg}
}

// cleanReason keeps the messages of a JSON Schema validator report
// ("jsonschema validation failed with '...'\n- at ”: minimum: got 0, want
// 1") and drops its schema URL and locations.
func cleanReason(reason string) string {
	if !strings.HasPrefix(reason, "jsonschema validation failed") {
		return reason
	}
	var msgs []string
	for _, line := range strings.Split(reason, "\n")[1:] {
		line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
		if rest, ok := strings.CutPrefix(line, "at '"); ok {
			if _, after, found := strings.Cut(rest, "': "); found {
				line = after
			}
		}
		if line != "" {
			msgs = append(msgs, line)
		}
	}
	if len(msgs) == 0 {
		return reason
	}
	return strings.Join(msgs, "; ")
}

// quotedProperty extracts X from `property "X"<suffix>`.
func quotedProperty(reason, suffix string) (string, bool) {
	rest, ok := strings.CutPrefix(reason, `property "`)
	if !ok {
		return "", false
	}
	name, ok := strings.CutSuffix(rest, `"`+suffix)
	return name, ok
}

// isIndex reports whether a JSON pointer element is an array index.
func isIndex(p string) bool {
	if p == "" {
		return false
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
