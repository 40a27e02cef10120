package ingest

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/barrage-dev/barrage/pkg/spec"
	barragev1 "github.com/barrage-dev/barrage/proto/barrage/v1"
)

func TestWrittenURLsFromProto(t *testing.T) {
	t.Parallel()
	long := "http://h/" + strings.Repeat("a", spec.MaxURLLength)
	got, err := writtenURLsFromProto([]string{"http://h/post/2", "", long, "http://h/a\nb", "http://h/tab\there", "http://h/post/4"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"http://h/post/2", "http://h/post/4"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q (empty, too long and control characters left out)", got, want)
	}
	if got, err := writtenURLsFromProto(nil); got != nil || err != nil {
		t.Errorf("none: %q, %v", got, err)
	}
	if _, err := writtenURLsFromProto(make([]string, spec.MaxWrittenURLs+1)); err == nil {
		t.Error("more written URLs than a run may record were accepted")
	}
}

// TestRedactWrittenURLs: the secret query parameters of a snapshot's
// written URLs, built-in names and the deployment's own, are redacted
// before they are stored.
func TestRedactWrittenURLs(t *testing.T) {
	t.Parallel()
	data, err := proto.Marshal(&barragev1.Snapshot{
		RunId: uuid.NewString(), AgentId: uuid.NewString(), Seq: 3, IntervalStart: timestamppb.Now(),
		WrittenUrls: []string{"http://h/post/1?api_key=s3cret&v=2", "http://h/post/2?x-tenant=abc", "http://h/post/3?v=1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := decodeSnapshot("", data)
	if err != nil {
		t.Fatal(err)
	}
	s.redactURLs(spec.NewRedactor([]string{"X-Tenant"}))
	want := []string{"http://h/post/1?api_key=" + spec.RedactedValue + "&v=2", "http://h/post/2?x-tenant=" + spec.RedactedValue, "http://h/post/3?v=1"}
	if !slices.Equal(s.rec.WrittenURLs, want) {
		t.Errorf("stored %q, want %q", s.rec.WrittenURLs, want)
	}
}
