// Package envconf reads a service's settings from environment variables
// into a struct with caarlos0/env tags, with errors that name the variable
// and its value rather than the Go field. Every Barrage binary uses it
// before parsing its flags, so flags win over the environment.
//
// It is not a flag parser: each binary declares its own flags.
package envconf

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/caarlos0/env/v11"
)

// Parse fills the struct that target points to from environ ("KEY=value"
// entries, as os.Environ returns) and the fields' envDefault tags.
func Parse(target any, environ []string) error {
	vars := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	if err := env.ParseWithOptions(target, env.Options{Environment: vars}); err != nil {
		return rename(err, reflect.TypeOf(target).Elem(), vars)
	}
	return nil
}

// rename rewrites the env parser's errors, which name Go fields of t, to
// name the environment variable and its value.
func rename(err error, t reflect.Type, vars map[string]string) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return fmt.Errorf("environment: %w", err)
	}
	errs := make([]error, 0, len(agg.Errors))
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			if f, ok := t.FieldByName(pe.Name); ok {
				name := f.Tag.Get("env")
				errs = append(errs, fmt.Errorf("%s=%q: %w", name, vars[name], pe.Err))
				continue
			}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}
