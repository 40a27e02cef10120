// Package api holds the REST contract of barrage-api: openapi.yaml, the
// hand-written source of truth that the gin server interface, the request
// validator and the dashboard's client are generated from or built on.
package api

import _ "embed"

// OpenAPI is the OpenAPI 3.1 document, served at /api/v1/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
