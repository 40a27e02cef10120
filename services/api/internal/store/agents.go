package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm/clause"

	"github.com/barrage-dev/barrage/services/api/internal/agents"
)

// agentRow is a row of agents.
type agentRow struct {
	ID            uuid.UUID `gorm:"column:id;primaryKey"`
	Name          string    `gorm:"column:name"`
	Labels        []byte    `gorm:"column:labels"`
	Version       string    `gorm:"column:version"`
	Capacity      int       `gorm:"column:capacity"`
	RunningShards int       `gorm:"column:running_shards"`
	RSSBytes      int64     `gorm:"column:rss_bytes"`
	CPUPercent    float64   `gorm:"column:cpu_percent"`
	FirstSeenAt   time.Time `gorm:"column:first_seen_at"`
	LastSeenAt    time.Time `gorm:"column:last_seen_at"`
}

// TableName returns the table of agentRow.
func (agentRow) TableName() string { return "agents" }

// agentFromRow maps a row to an agent.
func agentFromRow(r agentRow) (agents.Agent, error) {
	labels, err := parseLabels(r.Labels)
	if err != nil {
		return agents.Agent{}, fmt.Errorf("agent %s: %w", r.ID, err)
	}
	return agents.Agent{
		ID: r.ID, Name: r.Name, Labels: labels, Version: r.Version, Capacity: r.Capacity,
		RunningShards: r.RunningShards, RSSBytes: r.RSSBytes, CPUPercent: r.CPUPercent,
		FirstSeenAt: r.FirstSeenAt.UTC(), LastSeenAt: r.LastSeenAt.UTC(),
	}, nil
}

// ListAgents returns every agent, most recently seen first.
func (s *Store) ListAgents(ctx context.Context) ([]agents.Agent, error) {
	var rows []agentRow
	if err := s.conn(ctx).Order("last_seen_at DESC, name").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	out := make([]agents.Agent, len(rows))
	for i := range rows {
		a, err := agentFromRow(rows[i])
		if err != nil {
			return nil, fmt.Errorf("list agents: %w", err)
		}
		out[i] = a
	}
	return out, nil
}

// UpsertAgents records heartbeats in the registry: new agents are added,
// known ones get their latest figures and last_seen_at.
func (s *Store) UpsertAgents(ctx context.Context, list []agents.Agent) error {
	if len(list) == 0 {
		return nil
	}
	rows := make([]agentRow, len(list))
	for i := range list {
		a := &list[i]
		rows[i] = agentRow{
			ID: a.ID, Name: a.Name, Labels: labelsJSON(a.Labels), Version: a.Version, Capacity: a.Capacity,
			RunningShards: a.RunningShards, RSSBytes: a.RSSBytes, CPUPercent: a.CPUPercent,
			FirstSeenAt: a.LastSeenAt.UTC(), LastSeenAt: a.LastSeenAt.UTC(),
		}
	}
	err := s.conn(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "id"}},
		DoUpdates: clause.AssignmentColumns([]string{
			"name", "labels", "version", "capacity", "running_shards", "rss_bytes", "cpu_percent", "last_seen_at",
		}),
	}).Create(&rows).Error
	if err != nil {
		return fmt.Errorf("upsert agents: %w", err)
	}
	return nil
}

// ActiveShards returns the assigned or running shards, with an agent, of
// the runs of the projects (every project when all) that are dispatching,
// running or stopping (index runs_active_idx), by run and shard.
func (s *Store) ActiveShards(ctx context.Context, projects []uuid.UUID, all bool) ([]agents.Shard, error) {
	var rows []struct {
		AgentID uuid.UUID
		RunID   uuid.UUID
		RunName string
		Shard   int
		Status  string
		QPS     float64 `gorm:"column:qps"`
	}
	err := s.conn(ctx).Raw(`SELECT s.agent_id, s.run_id, r.name AS run_name, s.shard, s.status, s.qps
		FROM runs r JOIN run_shards s ON s.run_id = r.id
		WHERE r.status IN ('dispatching', 'running', 'stopping') AND s.status IN ('assigned', 'running')
		AND s.agent_id IS NOT NULL AND (? OR r.project_id = ANY(?::uuid[]))
		ORDER BY r.created_at, r.id, s.shard`, all, uuidArray(projects)).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("active shards: %w", err)
	}
	out := make([]agents.Shard, len(rows))
	for i, r := range rows {
		out[i] = agents.Shard{AgentID: r.AgentID, RunID: r.RunID, RunName: r.RunName, Shard: r.Shard, Status: r.Status, QPS: r.QPS}
	}
	return out, nil
}
