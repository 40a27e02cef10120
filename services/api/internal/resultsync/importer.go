package resultsync

import (
	"bytes"
	"context"
	"crypto/md5" //nolint:gosec // listings and index.tsv identify objects by MD5; not a security use
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/barrage-dev/barrage/pkg/fortiojson"
	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/services/api/internal/apperr"
	"github.com/barrage-dev/barrage/services/api/internal/imports"
	"github.com/barrage-dev/barrage/services/api/internal/runs"
)

// importer handles the objects of one sync.
type importer struct {
	store Store
	fetch fetcher
	src   Source
	now   func() time.Time
	// redactor redacts the imported documents.
	redactor spec.Redactor
}

// object fetches, checks and imports one listed object and says what
// became of it.
func (im importer) object(ctx context.Context, obj listed) Object {
	o := Object{URL: spec.RedactURL(obj.url), Size: obj.size, MD5: obj.md5}
	if !isJSON(obj.url) {
		o.Outcome, o.Reason = Skipped, "not a .json result"
		return o
	}
	key := SyncedKey{SourceID: im.src.ID, URL: o.URL, MD5: obj.md5, Size: obj.size}
	if obj.md5 != nil {
		if done := im.unchanged(ctx, &o, key); done {
			return o
		}
	}
	body, err := im.fetch.get(ctx, obj.url, fortiojson.MaxDocumentBytes)
	if err != nil {
		return fail(o, err.Error())
	}
	if obj.size >= 0 && int64(len(body)) != obj.size {
		return fail(o, fmt.Sprintf("size mismatch: the listing says %d bytes, the object has %d", obj.size, len(body)))
	}
	sum := md5.Sum(body) //nolint:gosec // see import
	if obj.md5 != nil && !bytes.Equal(obj.md5, sum[:]) {
		return fail(o, fmt.Sprintf("MD5 mismatch: the listing says %s, the object's is %s",
			base64.StdEncoding.EncodeToString(obj.md5), base64.StdEncoding.EncodeToString(sum[:])))
	}
	o.MD5, key.MD5, key.Size = sum[:], sum[:], int64(len(body))
	if obj.md5 == nil {
		if done := im.unchanged(ctx, &o, key); done {
			return o
		}
	}
	n, err := imports.Build(body, imports.Meta{
		Project: im.src.ProjectID, Origin: o.URL, Source: runs.SourceSync, CreatedBy: im.src.CreatedBy, Now: im.now(),
		Redactor: im.redactor,
	})
	if err != nil {
		return fail(o, "not a Fortio result: "+reason(err))
	}
	id, created, err := im.store.ImportSynced(ctx, n, key)
	if err != nil {
		return fail(o, "could not store the run")
	}
	o.Outcome, o.RunID = Unchanged, id
	if created {
		o.Outcome = Imported
	}
	return o
}

// unchanged reports whether key was imported before, filling o if so.
func (im importer) unchanged(ctx context.Context, o *Object, key SyncedKey) bool {
	id, found, err := im.store.SyncedRun(ctx, key)
	if err != nil || !found {
		return false
	}
	o.Outcome, o.RunID = Unchanged, id
	return true
}

func fail(o Object, why string) Object {
	o.Outcome, o.Reason = FailedObj, why
	return o
}

// reason is the text of an import error: the field and what is wrong.
func reason(err error) string {
	var ae *apperr.Error
	if errors.As(err, &ae) && len(ae.Fields) > 0 {
		f := ae.Fields[0]
		return f.Field + ": " + f.Message
	}
	return err.Error()
}

// isJSON reports whether a URL's path names a .json file.
func isJSON(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.HasSuffix(strings.ToLower(u.Path), ".json")
}
