module github.com/barrage-dev/barrage/services/agent

go 1.26
