module github.com/barrage-dev/barrage/services/api

go 1.26
