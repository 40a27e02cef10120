package auth

import (
	"slices"
	"testing"

	"github.com/google/uuid"
)

func TestRoleIncludes(t *testing.T) {
	t.Parallel()
	roles := []Role{Viewer, Runner, Admin, "", "owner"}
	// want[r] lists the roles r includes.
	want := map[Role][]Role{
		Viewer: {Viewer},
		Runner: {Viewer, Runner},
		Admin:  {Viewer, Runner, Admin},
	}
	for _, r := range roles {
		for _, need := range []Role{Viewer, Runner, Admin} {
			if got := r.Includes(need); got != slices.Contains(want[r], need) {
				t.Errorf("%q.Includes(%q) = %v, want %v", r, need, got, !got)
			}
		}
	}
}

func TestLower(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ r, o, want Role }{
		{Admin, Viewer, Viewer}, {Viewer, Admin, Viewer}, {Runner, Admin, Runner}, {Admin, Admin, Admin},
		{Admin, "", ""}, {"", Runner, ""}, {Runner, "owner", "owner"},
	} {
		if got := Lower(c.r, c.o); got != c.want {
			t.Errorf("Lower(%q, %q) = %q, want %q", c.r, c.o, got, c.want)
		}
	}
}

func TestEffectiveTokenRole(t *testing.T) {
	t.Parallel()
	project := uuid.New()
	for _, c := range []struct {
		name string
		id   Identity
		want Role
	}{
		{"owner demoted", Identity{TokenProject: project, TokenRole: Admin, OwnerRole: Viewer}, Viewer},
		{"owner promoted", Identity{TokenProject: project, TokenRole: Runner, OwnerRole: Admin}, Runner},
		{"owner removed", Identity{TokenProject: project, TokenRole: Runner}, ""},
		{"org admin not a member", Identity{OrgAdmin: true, TokenProject: project, TokenRole: Runner}, Runner},
		{"unscoped token", Identity{}, ""},
	} {
		if got := c.id.effectiveTokenRole(); got != c.want {
			t.Errorf("%s: effectiveTokenRole = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestParseRole(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"viewer", "runner", "admin"} {
		if r, err := ParseRole(s); err != nil || string(r) != s || !r.Valid() {
			t.Errorf("ParseRole(%q) = %q, %v", s, r, err)
		}
	}
	for _, s := range []string{"", "Admin", "owner", " viewer"} {
		if r, err := ParseRole(s); err == nil || r != "" {
			t.Errorf("ParseRole(%q) = %q, %v; want an error", s, r, err)
		}
	}
}

func TestPrincipalRoleIn(t *testing.T) {
	t.Parallel()
	home, away, elsewhere := uuid.New(), uuid.New(), uuid.New()
	members := map[uuid.UUID]Role{home: Runner, away: Viewer}
	tests := []struct {
		name string
		p    Principal
		want map[uuid.UUID]Role // role in home, away and elsewhere; missing = ""
		// visible and all are what VisibleProjects returns.
		visible []uuid.UUID
		all     bool
	}{
		{
			name: "scoped token", p: Principal{TokenID: uuid.New(), TokenProject: home, TokenRole: Viewer, Memberships: members},
			want: map[uuid.UUID]Role{home: Viewer}, visible: []uuid.UUID{home},
		},
		{
			name: "org admin's scoped token keeps to its scope",
			p:    Principal{OrgAdmin: true, TokenID: uuid.New(), TokenProject: away, TokenRole: Runner},
			want: map[uuid.UUID]Role{away: Runner}, visible: []uuid.UUID{away},
		},
		{
			name: "scoped token whose owner left its project",
			p:    Principal{TokenID: uuid.New(), TokenProject: home, TokenRole: "", Memberships: members},
			want: map[uuid.UUID]Role{}, visible: []uuid.UUID{},
		},
		{
			name: "org admin", p: Principal{OrgAdmin: true, TokenID: uuid.New()},
			want: map[uuid.UUID]Role{home: Admin, away: Admin, elsewhere: Admin}, all: true,
		},
		{
			name: "member", p: Principal{SessionID: uuid.New(), Memberships: members},
			want: members, visible: []uuid.UUID{home, away},
		},
		{
			name: "stranger", p: Principal{SessionID: uuid.New()},
			want: map[uuid.UUID]Role{}, visible: []uuid.UUID{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, project := range []uuid.UUID{home, away, elsewhere} {
				want := tt.want[project]
				if got := tt.p.RoleIn(project); got != want {
					t.Errorf("RoleIn(project) = %q, want %q", got, want)
				}
				for _, need := range []Role{Viewer, Runner, Admin} {
					if got := tt.p.Can(project, need); got != want.Includes(need) {
						t.Errorf("Can(project, %s) = %v, want %v", need, got, !got)
					}
				}
			}
			visible, all := tt.p.VisibleProjects()
			slices.SortFunc(visible, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
			slices.SortFunc(tt.visible, func(a, b uuid.UUID) int { return slices.Compare(a[:], b[:]) })
			if all != tt.all || !slices.Equal(visible, tt.visible) {
				t.Errorf("VisibleProjects = %v, %v; want %v, %v", visible, all, tt.visible, tt.all)
			}
			if got := tt.p.Scoped(); got != (tt.p.TokenProject != uuid.Nil) {
				t.Errorf("Scoped = %v", got)
			}
		})
	}
}

func TestPrincipalActor(t *testing.T) {
	t.Parallel()
	p := Principal{UserID: uuid.New(), TokenID: uuid.New(), SessionID: uuid.New()}
	if a := p.Actor(); a.UserID != p.UserID || a.TokenID != p.TokenID {
		t.Errorf("Actor = %+v, want the user and token of %+v", a, p)
	}
}
