package app

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	"github.com/barrage-dev/barrage/services/agent/agent"
	"github.com/barrage-dev/barrage/services/api/client"
	"github.com/barrage-dev/barrage/services/api/internal/auth"
)

// issueAgent runs `agent-credentials create NAME -o FILE` with extra flags
// and returns the file's content and the agent id.
func issueAgent(t *testing.T, env []string, dir, name string, flags ...string) ([]byte, string) {
	t.Helper()
	path := filepath.Join(dir, name+".creds")
	args := append([]string{"agent-credentials", "create", name, "-o", path}, flags...)
	if code, _, errOut := runMain(t, env, args...); code != exitOK {
		t.Fatalf("agent-credentials create %s: exit %d: %s", name, code, errOut)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, id, err := natsauth.ParseCredentials(file)
	if err != nil {
		t.Fatal(err)
	}
	return file, id
}

// TestAgentPoolsRestrictDispatch (issue #25 item 7): in operator mode,
// three agents with their own credentials: one of pool team-a, one of pool
// team-b, and one bound to no pool that claims the label pool=team-a and a
// capacity of 100. The agent list shows the pools the credentials bind and
// the liar's capacity capped by BARRAGE_AGENT_MAX_CAPACITY. A project admin
// cannot grant its project pools (403, nothing stored); the org admin
// restricts the project to team-a, and its run is dispatched to the team-a
// agent alone; a run needing two agents of its pools fails saying why.
func TestAgentPoolsRestrictDispatch(t *testing.T) { // serial: see heavyTests
	dir := t.TempDir()
	keysPath := filepath.Join(dir, "nats-keys.json")
	if code, out, errOut := runMain(t, nil, "nats-auth", "init", keysPath); code != exitOK {
		t.Fatalf("nats-auth init: exit %d: %s%s", code, out, errOut)
	}
	env := []string{"BARRAGE_NATS_KEYS=" + keysPath}
	if code, _, errOut := runMain(t, env, "agent-credentials", "create", "x", "-pool", "Team A"); code != exitUsage || !strings.Contains(errOut, "pool") {
		t.Errorf("a bad pool: exit %d, %q; want a usage error naming the pool", code, errOut)
	}
	credsA, idA := issueAgent(t, env, dir, "agent-a", "-pool", "team-a")
	credsB, idB := issueAgent(t, env, dir, "agent-b", "-pool", "team-b")
	credsLiar, idLiar := issueAgent(t, env, dir, "liar")

	e := startAPI(t, "BARRAGE_NATS_KEYS="+keysPath, "BARRAGE_DISPATCH_WAIT=3s", "BARRAGE_AGENT_MAX_CAPACITY=3")
	echo := startEcho(t)
	for _, a := range []struct {
		name   string
		creds  []byte
		labels map[string]string
		cap    int
	}{
		{"agent-a", credsA, nil, 2},
		{"agent-b", credsB, nil, 2},
		{"liar", credsLiar, map[string]string{"pool": "team-a"}, 100},
	} {
		w, err := agent.New(agent.Options{NATSURL: e.NATSURL, Name: a.name, Capacity: a.cap, Labels: a.labels, Credentials: a.creds,
			Logger: slog.New(slog.NewTextHandler(testLogWriter(t), nil))})
		if err != nil {
			t.Fatal(err)
		}
		runUntilCleanup(t, "agent "+a.name, w.Run)
	}
	byID := map[string]client.Agent{}
	waitFor(t, 15*time.Second, func() error {
		list := decode[client.AgentList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/agents", e.AdminToken, nil))
		clear(byID)
		for _, a := range list.Items {
			byID[a.Id.String()] = a
		}
		if len(byID) != 3 {
			return fmt.Errorf("%d agents listed, want 3", len(byID))
		}
		return nil
	})
	poolOf := func(id string) string { return byID[id].Labels["pool"] }
	if poolOf(idA) != "team-a" || poolOf(idB) != "team-b" || poolOf(idLiar) != "" {
		t.Errorf("pools listed: a %q, b %q, liar %q; want team-a, team-b and none (the liar's credential binds none)",
			poolOf(idA), poolOf(idB), poolOf(idLiar))
	}
	if c := byID[idLiar].Capacity; c != 3 {
		t.Errorf("liar's capacity %d, want the server's cap 3", c)
	}

	e.mustProject(t, "restricted")
	projAdmin := e.mustMemberToken(t, "restricted-admin", "restricted", auth.Admin)
	pools := "/projects/restricted/agent-pools"
	e.mustDo(t, http.StatusForbidden, http.MethodPut, pools, projAdmin.Secret, map[string]any{"pools": []string{"team-a"}})
	if got := decode[client.AgentPools](t, e.mustDo(t, http.StatusOK, http.MethodGet, pools, projAdmin.Secret, nil)); len(got.Pools) != 0 {
		t.Fatalf("after the project admin's attempt: pools %v, want none", got.Pools)
	}
	bad := e.mustDo(t, http.StatusUnprocessableEntity, http.MethodPut, pools, e.AdminToken, map[string]any{"pools": []string{"team-a", "Team B"}})
	if !strings.Contains(string(bad), `"pools[1]"`) {
		t.Errorf("a bad pool: %s, want a field error on pools[1]", bad)
	}
	set := decode[client.AgentPools](t, e.mustDo(t, http.StatusOK, http.MethodPut, pools, e.AdminToken, map[string]any{"pools": []string{"team-a", "team-a"}}))
	if !slices.Equal(set.Pools, []string{"team-a"}) {
		t.Errorf("org admin set pools %v, want [team-a]", set.Pools)
	}
	if n := e.count(t, `SELECT count(*) FROM audit_log WHERE action = 'project.agent_pools'`); n != 1 {
		t.Errorf("%d project.agent_pools audit entries, want 1", n)
	}

	// Every eligible agent (count 0): the team-a agent alone, not the liar
	// that claims the label, not team-b.
	run := decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", projAdmin.Secret, map[string]any{
		"project": "restricted",
		"spec":    map[string]any{"url": echo + "/", "qps": 20, "connections": 2, "duration": "1s", "agents": map[string]any{"count": 0}},
	}))
	if done := e.waitRun(t, run.Id.String(), 40*time.Second); done.Status != "completed" {
		t.Fatalf("restricted run ended %s (%q)", done.Status, derefS(done.Error))
	}
	shards := decode[client.ShardList](t, e.mustDo(t, http.StatusOK, http.MethodGet, "/runs/"+run.Id.String()+"/shards", projAdmin.Secret, nil))
	if len(shards.Items) != 1 || shards.Items[0].AgentId == nil || shards.Items[0].AgentId.String() != idA {
		t.Errorf("restricted run's shards %+v, want one on agent-a (%s)", shards.Items, idA)
	}

	// Two agents of team-a do not exist: the run fails and says why.
	run = decode[client.Run](t, e.mustDo(t, http.StatusCreated, http.MethodPost, "/runs", projAdmin.Secret, map[string]any{
		"project": "restricted",
		"spec":    map[string]any{"url": echo + "/", "qps": 20, "connections": 2, "duration": "1s", "agents": map[string]any{"count": 2}},
	}))
	if done := e.waitRun(t, run.Id.String(), 20*time.Second); done.Status != "failed" || !strings.Contains(derefS(done.Error), "pools team-a") {
		t.Errorf("a run needing 2 agents of team-a: %s (%q), want failed naming the pools", done.Status, derefS(done.Error))
	}
}
