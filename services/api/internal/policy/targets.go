package policy

import (
	"errors"
	"fmt"
	"slices"

	"github.com/barrage-dev/barrage/pkg/netguard"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
)

// FieldTargetAllowList is the API name of a project's allow-list and of
// the organisation's target policy.
const FieldTargetAllowList = "target_allow_list"

// Targets is the target policy of one project (docs/security.md, "Target
// policy"): what its runs may send to and its syncs may fetch from. An
// address must match an entry of Allow, the project's allow-list, and an
// entry of Org or Granted, its outer bound; the control plane's own
// addresses (TargetPolicy.Deny of package runs) never pass.
type Targets struct {
	// Allow is the project's allow-list (netguard entries).
	Allow []string
	// Org is the organisation's target policy, which org admins set.
	Org []string
	// Granted are the entries of Allow beyond Org that an org admin
	// granted this project (or that it listed before the organisation had
	// a policy).
	Granted []string
}

// Outer returns the bound of the project's list: Org, then Granted.
func (t Targets) Outer() []string {
	return append(slices.Clone(t.Org), t.Granted...)
}

// Guard returns the Guard of the project's runs and syncs: only what
// Allow and Outer both open (public addresses too must be listed), never
// what deny (the control plane's addresses) names.
func (t Targets) Guard(deny []string) (netguard.Guard, error) {
	allow, err := netguard.ParseAllowList(t.Allow)
	if err != nil { // the projects service checked it when it was saved
		return netguard.Guard{}, fmt.Errorf("project target allow-list: %w", err)
	}
	outer, err := netguard.ParseAllowList(t.Outer())
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("organisation target policy: %w", err)
	}
	denied, err := netguard.ParseAllowList(deny)
	if err != nil {
		return netguard.Guard{}, fmt.Errorf("control-plane deny list: %w", err)
	}
	return netguard.Guard{Allow: allow, RequireListed: true, Outer: &outer, Deny: denied}, nil
}

// NarrowAllowList checks a new allow-list for a project whose current
// policy is t and returns the entries of it that are granted beyond the
// organisation's policy. An org admin may list anything that parses: the
// entries Org does not cover become granted. Anyone else may list only
// entries that Org or the project's granted entries cover (keeping,
// narrowing or dropping a grant, never widening one): any other entry is a
// Forbidden error naming it (target_allow_list[i]). Entries that do not
// parse are an Invalid error naming each.
func (t Targets) NarrowAllowList(list []string, orgAdmin bool) ([]string, error) {
	parsed, err := parseList(list, FieldTargetAllowList, "the target allow-list has invalid entries")
	if err != nil {
		return nil, err
	}
	org, err := netguard.ParseAllowList(t.Org)
	if err != nil {
		return nil, fmt.Errorf("organisation target policy: %w", err)
	}
	granted, err := netguard.ParseAllowList(t.Granted)
	if err != nil {
		return nil, fmt.Errorf("granted target entries: %w", err)
	}
	beyond := parsed.Outside(org.Merge(granted))
	out := []string{}
	e := &apperr.Error{Code: apperr.Forbidden,
		Detail: "the target allow-list goes beyond the organisation's target policy; only an org admin can add these entries"}
	for _, i := range parsed.Outside(org) {
		switch {
		case orgAdmin || !slices.Contains(beyond, i):
			out = append(out, list[i])
		default:
			e.Fields = append(e.Fields, apperr.FieldError{
				Field:   fmt.Sprintf("%s[%d]", FieldTargetAllowList, i),
				Message: fmt.Sprintf("%q is outside the organisation's target policy; ask an org admin to add it", list[i]),
			})
		}
	}
	if len(e.Fields) > 0 {
		return nil, e
	}
	return out, nil
}

// CheckOrgList reports each entry of an organisation policy that does not
// parse, as an Invalid error naming it.
func CheckOrgList(list []string) error {
	_, err := parseList(list, FieldTargetAllowList, "the target policy has invalid entries")
	return err
}

// parseList parses list; an error is an Invalid one naming each bad entry
// as field[i].
func parseList(list []string, field, detail string) (netguard.AllowList, error) {
	parsed, err := netguard.ParseAllowList(list)
	if err == nil {
		return parsed, nil
	}
	e := &apperr.Error{Code: apperr.Invalid, Detail: detail}
	var joined interface{ Unwrap() []error }
	errs := []error{err}
	if errors.As(err, &joined) {
		errs = joined.Unwrap()
	}
	for _, one := range errs {
		name := field
		var ee *netguard.EntryError
		if errors.As(one, &ee) {
			name = fmt.Sprintf("%s[%d]", field, ee.Index)
		}
		e.Fields = append(e.Fields, apperr.FieldError{Field: name, Message: one.Error()})
	}
	return netguard.AllowList{}, e
}
