package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/pkg/natsauth"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// PoolLabel is the label that names an agent's pool. The dispatcher sets
// it from the pool the agent's credential binds and drops any value the
// agent claims itself, so a selector on it, and a project's restriction
// to pools, hold against a lying agent (docs/security.md "Agents").
const PoolLabel = "pool"

// trust checks a heartbeat read under KV key and rewrites what it must not
// take from the agent: the agent is the key's (the only key its
// credentials may write), its pool label is its credential's, and its
// capacity is capped by the credential and by MaxAgentCapacity. An error
// says why the heartbeat is ignored.
func (d *Dispatcher) trust(key string, hb *barragev1.Heartbeat) error {
	if hb.GetAgentId() != key {
		return fmt.Errorf("the heartbeat under key %s names agent %q", key, hb.GetAgentId())
	}
	labels := maps.Clone(hb.GetLabels())
	if labels == nil {
		labels = map[string]string{}
	}
	delete(labels, PoolLabel)
	limit := d.cfg.MaxAgentCapacity
	if d.cfg.AgentAccount != "" && hb.GetCredential() != "" {
		b, err := natsauth.VerifyAgentJWT(hb.GetCredential(), d.cfg.AgentAccount)
		if err != nil {
			return err
		}
		if b.ID != key {
			return fmt.Errorf("the heartbeat under key %s carries the credential of agent %s", key, b.ID)
		}
		if b.Pool != "" {
			labels[PoolLabel] = b.Pool
		}
		if b.Capacity > 0 && (limit == 0 || b.Capacity < limit) {
			limit = b.Capacity
		}
	}
	hb.Labels = labels
	if limit > 0 && int(hb.GetCapacity()) > limit {
		hb.Capacity = uint32(limit) // positive and below a uint32 capacity
	}
	return nil
}

// inPools keeps the agents of pools; every agent when pools is empty.
func inPools(live []*barragev1.Heartbeat, pools []string) []*barragev1.Heartbeat {
	if len(pools) == 0 {
		return live
	}
	out := make([]*barragev1.Heartbeat, 0, len(live))
	for _, hb := range live {
		if p, ok := hb.GetLabels()[PoolLabel]; ok && slices.Contains(pools, p) {
			out = append(out, hb)
		}
	}
	return out
}

// eligible returns the live agents a run of project may use: those of the
// pools the project is restricted to, or every one. restriction describes
// the restriction for an error message; "" when there is none.
func (d *Dispatcher) eligible(ctx context.Context, project uuid.UUID) (live []*barragev1.Heartbeat, restriction string, err error) {
	if live, err = d.live(ctx); err != nil {
		return nil, "", err
	}
	pools, err := d.cfg.Store.ProjectAgentPools(ctx, project)
	if err != nil {
		return nil, "", fmt.Errorf("agent pools of project %s: %w", project, err)
	}
	if len(pools) == 0 {
		return live, "", nil
	}
	kept := inPools(live, pools)
	if len(kept) < len(live) {
		d.cfg.Log.Debug("dispatch: agents outside the project's pools left out", slog.Int("left_out", len(live)-len(kept)))
	}
	return kept, "the project may use only agents of the pools " + strings.Join(pools, ", "), nil
}
