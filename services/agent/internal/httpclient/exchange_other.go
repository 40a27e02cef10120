//go:build !unix

package httpclient

// rawSupported: off Unix every request uses conn.Write and conn.Read.
const rawSupported = false

// raw is never called: connReader.reset leaves rc nil here.
func (r *connReader) raw(uintptr) bool { return true }
