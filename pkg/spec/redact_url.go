package spec

// RedactURL returns raw with the username and password of its userinfo and
// the values of query parameters with secret names (see IsSecretName)
// replaced by RedactedValue; every other byte is kept. It works on text
// that does not parse as a URL too, and redacting twice gives the same
// result as once.
func RedactURL(raw string) string {
	return Redactor{}.URL(raw)
}
