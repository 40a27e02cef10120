package agent_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	"github.com/barrage-dev/barrage/pkg/natsembed"
	"github.com/barrage-dev/barrage/pkg/wire"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
	"github.com/barrage-dev/barrage/services/agent/agent"
)

// Example runs an agent against an embedded NATS server, reads the
// heartbeat it announces itself with, and stops it. In production the NATS
// server is barrage-api's, which then assigns the agent shards of runs.
func Example() {
	dir, err := os.MkdirTemp("", "agent-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	srv, err := natsembed.Start(natsembed.Options{DataDir: dir, Port: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Shutdown()

	a, err := agent.New(agent.Options{
		NATSURL: srv.URL(), Name: "example", Labels: map[string]string{"zone": "lab"}, Capacity: 2,
		Logger: slog.New(slog.DiscardHandler),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	beat, err := waitHeartbeat(srv.URL(), a.ID())
	if err != nil {
		fmt.Println(err)
	} else {
		fmt.Printf("%s: capacity %d, labels %v\n", beat.GetName(), beat.GetCapacity(), beat.GetLabels())
	}
	cancel()
	fmt.Println("stopped:", <-done)
	// Output:
	// example: capacity 2, labels map[zone:lab]
	// stopped: <nil>
}

// waitHeartbeat reads the heartbeat of agent id from the agents bucket,
// waiting up to 10 s for the agent to write it.
func waitHeartbeat(url, id string) (*barragev1.Heartbeat, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		entry, err := getHeartbeat(ctx, js, id)
		if err == nil {
			var beat barragev1.Heartbeat
			return &beat, proto.Unmarshal(entry.Value(), &beat)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no heartbeat: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// getHeartbeat reads one heartbeat; the bucket exists once the agent has
// set up the streams and buckets.
func getHeartbeat(ctx context.Context, js jetstream.JetStream, id string) (jetstream.KeyValueEntry, error) {
	kv, err := js.KeyValue(ctx, wire.AgentsBucket)
	if err != nil {
		return nil, err
	}
	return kv.Get(ctx, id)
}
