// Package deploycheck holds no code: its tests check the deployment files at
// the repository root (docker-compose.yml, .env.example, deploy/docker,
// deploy/nats) without a Docker engine, so CI (`make unit`) keeps them honest.
// It is not a deployment tool; the Helm chart is checked by `make deploy-check`.
package deploycheck
