package deploycheck

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/nats-io/nats-server/v2/conf"
	"go.yaml.in/yaml/v4"
)

// TestNATSChartValuesMatchConf: deploy/helm/nats-values-insecure-shared-agent.yaml (the official
// NATS chart) gives the users the same permissions as deploy/nats/nats-insecure-shared-agent.conf,
// which TestNATSUsers and TestStackRunsWithAgentPermissions check for real.
func TestNATSChartValuesMatchConf(t *testing.T) { // not parallel: t.Setenv
	t.Setenv("NATS_API_PASSWORD", apiPassword)
	t.Setenv("NATS_AGENT_PASSWORD", agentPassword)
	parsed, err := conf.ParseFile(filepath.Join(root, "deploy", "nats", "nats-insecure-shared-agent.conf"))
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		Config struct {
			Jetstream struct{ Enabled bool }
			Merge     struct {
				Authorization struct {
					Users []map[string]any
				}
			}
		}
	}
	if err := yaml.Unmarshal([]byte(mustRead(t, "deploy/helm/nats-values-insecure-shared-agent.yaml")), &values); err != nil {
		t.Fatal(err)
	}
	if !values.Config.Jetstream.Enabled {
		t.Error("nats-values.yaml: JetStream is off")
	}
	perms := func(users []any) map[string]any {
		out := map[string]any{}
		for _, u := range users {
			m := u.(map[string]any)
			out[m["user"].(string)] = normalize(m["permissions"])
		}
		return out
	}
	confUsers := parsed["authorization"].(map[string]any)["users"].([]any)
	chartUsers := make([]any, 0, len(values.Config.Merge.Authorization.Users))
	for _, u := range values.Config.Merge.Authorization.Users {
		chartUsers = append(chartUsers, u)
	}
	if got, want := perms(chartUsers), perms(confUsers); !reflect.DeepEqual(got, want) {
		t.Errorf("nats-values.yaml permissions\n%v\nwant those of nats.conf\n%v", got, want)
	}
	if len(confUsers) != 2 {
		t.Errorf("nats.conf has %d users, want api and agent", len(confUsers))
	}
}

// normalize turns the parsed trees of both formats into plain maps and slices.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	default:
		return x
	}
}
