package httpapi

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

func TestParseIDs(t *testing.T) {
	t.Parallel()
	a, b := uuid.New(), uuid.New()
	many := make([]string, 21)
	for i := range many {
		many[i] = uuid.NewString()
	}
	tests := []struct {
		name, in string
		want     int
	}{
		{"two", a.String() + "," + b.String(), 2},
		{"spaces", a.String() + ", " + b.String(), 2},
		{"one", a.String(), -1},
		{"bad", a.String() + ",x", -1},
		{"twice", a.String() + "," + a.String(), -1},
		{"21", strings.Join(many, ","), -1},
		{"20", strings.Join(many[:20], ","), 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ids, err := parseIDs(tt.in)
			if tt.want < 0 {
				var e *apperr.Error
				if !errors.As(err, &e) || e.Code != apperr.Invalid || len(e.Fields) != 1 || e.Fields[0].Field != "ids" {
					t.Errorf("parseIDs = %v, %v; want an error on ids", ids, err)
				}
				return
			}
			if err != nil || len(ids) != tt.want {
				t.Errorf("parseIDs = %v, %v; want %d ids", ids, err, tt.want)
			}
		})
	}
}

func TestShardOut(t *testing.T) {
	t.Parallel()
	agent := uuid.New()
	at := time.Date(2026, 11, 23, 10, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		in    runs.ShardProgress
		agent *uuid.UUID
	}{
		{"with agent", runs.ShardProgress{
			Shard:  runs.Shard{Index: 2, AgentID: agent, AgentName: "a-2", QPS: 33.5, Connections: 3},
			Status: runs.ShardDone, LastSeq: 7, FinalReceived: true, Count: 200, Errors: 4, UpdatedAt: at,
		}, &agent},
		{"agent removed", runs.ShardProgress{
			Shard:  runs.Shard{Index: 2, AgentName: "a-2", QPS: 33.5, Connections: 3},
			Status: runs.ShardDone, LastSeq: 7, FinalReceived: true, Count: 200, Errors: 4, UpdatedAt: at,
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := shardOut(tt.in)
			want := RunShard{
				Shard: 2, AgentId: tt.agent, AgentName: "a-2", Status: ShardDone, Qps: 33.5, Connections: 3,
				Count: 200, Errors: 4, Snapshots: 7, FinalReceived: true, UpdatedAt: at,
			}
			if (got.AgentId == nil) != (want.AgentId == nil) || (got.AgentId != nil && *got.AgentId != *want.AgentId) {
				t.Errorf("agent id = %v, want %v", got.AgentId, want.AgentId)
			}
			got.AgentId, want.AgentId = nil, nil
			if got != want {
				t.Errorf("shardOut = %+v, want %+v", got, want)
			}
		})
	}
}
