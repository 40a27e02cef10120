package worker

import (
	"testing"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

// FuzzAssignment decodes an assignment message as it comes off NATS and
// builds its shard: it never panics, and a shard it accepts has a run id
// that is one subject token, a shard within the count, a deadline after
// now and a spec that validates.
func FuzzAssignment(f *testing.F) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, a := range []*barragev1.Assignment{
		{
			RunId: "r1", Shard: 0, ShardCount: 2, Spec: []byte(`{"url":"http://127.0.0.1:1/","qps":5,"connections":1,"duration":"1s"}`),
			StartAt: timestamppb.New(now), Deadline: timestamppb.New(now.Add(time.Minute)),
		},
		{
			RunId: "r2", Spec: []byte(`{"url":"grpc://127.0.0.1:1","connections":1,"count":3,"grpc":{"mode":"ping"},"headers":["Authorization: x"]}`),
			Deadline: timestamppb.New(now.Add(time.Second)),
		},
		{RunId: "bad.id", Spec: []byte(`{"url":1}`)},
	} {
		b, err := proto.Marshal(a)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x0a, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		a := &barragev1.Assignment{}
		if proto.Unmarshal(data, a) != nil {
			return
		}
		sh, err := (&Worker{}).newShard(a, now)
		if err != nil {
			return
		}
		defer sh.stop(nil)
		switch {
		case !validToken(sh.key.run):
			t.Fatalf("accepted run id %q", sh.key.run)
		case a.GetShardCount() > 0 && sh.key.shard >= a.GetShardCount():
			t.Fatalf("accepted shard %d of %d", sh.key.shard, a.GetShardCount())
		case !sh.deadline.After(now):
			t.Fatalf("accepted deadline %s, not after %s", sh.deadline, now)
		case sh.spec.Validate() != nil:
			t.Fatalf("accepted a spec that does not validate: %v", sh.spec.Validate())
		case sh.spec.PayloadFile != "":
			t.Fatal("accepted a payload file")
		}
	})
}
