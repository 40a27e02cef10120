module github.com/barrage-dev/barrage/migrations

go 1.26
