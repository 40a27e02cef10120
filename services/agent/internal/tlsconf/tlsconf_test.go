package tlsconf

import (
	"crypto/tls"
	"os"
	"strings"
	"testing"

	"github.com/barrage-dev/barrage/pkg/spec"
	"github.com/barrage-dev/barrage/pkg/testcert"
)

func TestConfig(t *testing.T) {
	t.Parallel()
	certFile, keyFile, _ := testcert.Write(t)
	cert, _ := os.ReadFile(certFile)
	key, _ := os.ReadFile(keyFile)
	cfg, err := Config(spec.Spec{})
	if err != nil || cfg.InsecureSkipVerify || cfg.MinVersion != tls.VersionTLS12 || cfg.ClientSessionCache == nil || cfg.RootCAs != nil {
		t.Fatalf("defaults: %+v %v", cfg, err)
	}
	cfg, err = Config(spec.Spec{Insecure: true, TLSSettings: &spec.TLSSettings{
		CACert: string(cert), ClientCert: string(cert), ClientKey: string(key), ServerName: "sni.test", MinVersion: "1.3", NoResumption: true,
	}})
	if err != nil || !cfg.InsecureSkipVerify || cfg.MinVersion != tls.VersionTLS13 || cfg.ClientSessionCache != nil ||
		!cfg.SessionTicketsDisabled || cfg.RootCAs == nil || len(cfg.Certificates) != 1 || cfg.ServerName != "sni.test" {
		t.Fatalf("settings: %+v %v", cfg, err)
	}
	for _, tt := range []struct {
		tls  spec.TLSSettings
		want string
	}{
		{spec.TLSSettings{ClientCert: string(cert), ClientKey: spec.RedactedValue}, "tls.client_key: is redacted"},
		{spec.TLSSettings{CACert: spec.RedactedValue}, "tls.ca_cert: is redacted"},
		{spec.TLSSettings{CACert: "junk"}, "tls.ca_cert: holds no PEM"},
		{spec.TLSSettings{ClientCert: string(cert), ClientKey: string(cert)}, "tls.client_key:"},
		{spec.TLSSettings{MinVersion: "2"}, "tls.min_version"},
	} {
		if _, err := Config(spec.Spec{TLSSettings: &tt.tls}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.tls, err, tt.want)
		}
	}
}
