package scenario

import (
	"net"
	"net/url"
	"regexp"
	"strings"
)

// A gRPC step calls one unary method: its URL is
// grpc://host:port/package.Service/Method (grpcs:// over TLS), its body
// the request message in protobuf JSON, its headers the request metadata.
// Its status is the call's gRPC status code (0 is OK), its body the reply
// in protobuf JSON, its headers the reply's header and trailer metadata.

// maxGRPCCode is the highest gRPC status code (Unauthenticated).
const maxGRPCCode = 16

// GRPCStep is what a gRPC step calls.
type GRPCStep struct {
	// TLS is set for grpcs://.
	TLS bool
	// Addr is the host:port dialled.
	Addr string
	// Method is the HTTP/2 path of the method, "/package.Service/Method".
	Method string
}

// grpcMethodPath is a method's path: a service's full name, then a method.
var grpcMethodPath = regexp.MustCompile(`^/[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*/[A-Za-z_][A-Za-z0-9_]*$`)

// grpcStep reads a grpc:// or grpcs:// step, or returns nil for another
// scheme. Its URL takes no variables, and it has no HTTP method or
// protocol.
func (c *compiler) grpcStep(path string, st *Step) *GRPCStep {
	scheme, _, _ := strings.Cut(st.URL, "://")
	scheme = strings.ToLower(scheme)
	if scheme != "grpc" && scheme != "grpcs" {
		return nil
	}
	g := &GRPCStep{TLS: scheme == "grpcs"}
	u, err := url.Parse(st.URL)
	switch {
	case strings.Contains(st.URL, "{{"):
		c.fail(path+".url", "a gRPC step's URL takes no variables: its method is resolved once, by server reflection")
	case err != nil || u.Host == "" || u.User != nil:
		c.fail(path+".url", "want grpc://host:port/package.Service/Method")
	case u.RawQuery != "" || u.Fragment != "" || !grpcMethodPath.MatchString(u.Path):
		c.fail(path+".url", "want grpc://host:port/package.Service/Method: the path names a unary method, with no query")
	default:
		port := u.Port()
		if port == "" {
			port = "80"
			if g.TLS {
				port = "443"
			}
		}
		g.Addr, g.Method = net.JoinHostPort(u.Hostname(), port), u.Path
	}
	if st.Method != "" {
		c.fail(path+".method", "a gRPC step has no HTTP method: its URL names the gRPC method")
	}
	if st.Protocol != "" {
		c.fail(path+".protocol", "a gRPC step's protocol is gRPC, from its grpc:// or grpcs:// URL")
	}
	return g
}
