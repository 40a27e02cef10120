module github.com/barrage-dev/barrage/web

go 1.26.0

// node_modules is npm's; some packages ship Go files the go tool must not build.
ignore ./node_modules
