// Package faultsuite holds the fault-injection suite (`make faults`, issue
// #13): barrage-api, barrage-agent and barrage-echo as separate OS
// processes, a dedicated nats-server and a dedicated Postgres cluster
// (initdb and pg_ctl in a temporary directory), broken in one way per
// scenario, then checked: every run reaches a terminal state within its
// deadline and 30 s, and no snapshot was lost or counted twice (each
// agent's own final count of a shard against the stored one, and the echo
// server's count of requests against the stored total).
//
// The tests need the build tag faults; FAULTS_OUTAGE sets how long Postgres
// stays down (default 30s, as in make test).
package faultsuite
