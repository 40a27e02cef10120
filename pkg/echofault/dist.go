package echofault

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// ErrOverHundred is returned when the percentages of a list add up to more than 100.
var ErrOverHundred = errors.New("percentages add up to more than 100")

// ErrSyntax is returned for a value or list that does not parse.
var ErrSyntax = errors.New("bad syntax")

// Dist is a discrete distribution over values of T: each value has a chance in
// percent, and the remainder up to 100 % draws nothing. The zero Dist never draws.
type Dist[T any] struct {
	values []T
	// cumulative[i] is the sum of the chances of values[0..i], in percent.
	cumulative []float64
}

// Always returns a Dist that draws v every time.
func Always[T any](v T) Dist[T] {
	return Dist[T]{values: []T{v}, cumulative: []float64{100}}
}

// Empty reports whether the distribution can never draw a value.
func (d Dist[T]) Empty() bool {
	return len(d.values) == 0
}

// Draw maps u, a uniform number in [0, 100), to a value; ok is false when u falls
// in the remainder that draws nothing.
func (d Dist[T]) Draw(u float64) (v T, ok bool) {
	for i, c := range d.cumulative {
		if u < c {
			return d.values[i], true
		}
	}
	return v, false
}

// Chances returns a copy of the values and their individual chances in percent.
func (d Dist[T]) Chances() (values []T, percents []float64) {
	values = append(values, d.values...)
	prev := 0.0
	for _, c := range d.cumulative {
		percents = append(percents, c-prev)
		prev = c
	}
	return values, percents
}

// parseList parses "v" (100 %) or "v1:p1,v2:p2,..." using parseValue for each value.
func parseList[T any](s string, parseValue func(string) (T, error)) (Dist[T], error) {
	var d Dist[T]
	if s == "" {
		return d, fmt.Errorf("empty value: %w", ErrSyntax)
	}
	if !strings.ContainsAny(s, ":,") {
		v, err := parseValue(s)
		if err != nil {
			return d, err
		}
		return Always(v), nil
	}
	total := 0.0
	for entry := range strings.SplitSeq(s, ",") {
		value, chance, found := strings.Cut(entry, ":")
		if !found {
			return Dist[T]{}, fmt.Errorf("%q: want value:percent: %w", entry, ErrSyntax)
		}
		p, err := ParsePercent(chance)
		if err != nil {
			return Dist[T]{}, err
		}
		v, err := parseValue(value)
		if err != nil {
			return Dist[T]{}, err
		}
		total += p
		if total > 100 {
			return Dist[T]{}, fmt.Errorf("%q: %w", s, ErrOverHundred)
		}
		d.values = append(d.values, v)
		d.cumulative = append(d.cumulative, total)
	}
	return d, nil
}

// ParsePercent parses a percentage such as "20", "0.5" or "20%" in [0, 100].
func ParsePercent(s string) (float64, error) {
	p, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if err != nil || p < 0 || p > 100 || p != p { // p != p: NaN
		return 0, fmt.Errorf("percentage %q: want a number from 0 to 100: %w", s, ErrSyntax)
	}
	return p, nil
}
