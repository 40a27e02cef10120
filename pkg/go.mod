module github.com/barrage-dev/barrage/pkg

go 1.26.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.2.0
	golang.org/x/net v0.61.0
	pgregory.net/rapid v1.2.0
)

require (
	github.com/caarlos0/env/v11 v11.4.2
	github.com/google/uuid v1.6.0
	github.com/klauspost/compress v1.20.3
	github.com/nats-io/jwt/v2 v2.8.2
	github.com/nats-io/nats-server/v2 v2.15.2
	github.com/nats-io/nats.go v1.55.0
	github.com/nats-io/nkeys v0.4.16
	github.com/prometheus/client_model v0.6.3
	github.com/prometheus/common v0.72.0
	github.com/theory/jsonpath v0.12.3
	go.yaml.in/yaml/v4 v4.0.0
)

require (
	github.com/antithesishq/antithesis-sdk-go v0.8.0-default-no-op // indirect
	github.com/google/go-tpm v0.9.8 // indirect
	github.com/minio/highwayhash v1.0.4 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.16.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
