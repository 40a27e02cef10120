module github.com/barrage-dev/barrage/pkg

go 1.26

require (
	github.com/HdrHistogram/hdrhistogram-go v1.2.0
	pgregory.net/rapid v1.2.0
)
