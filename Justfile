# grove tasks: `just <task>`

# Run grove (offline demo model when no API key is set).
run *ARGS:
    go run ./cmd/grove {{ARGS}}

# The test command CI runs.
test:
    go test ./...

# Tests with the race detector.
race:
    go test -race ./...

# Benchmarks: Go benchmarks plus the bench/ harness.
bench:
    go test -run '^$' -bench . -benchmem ./core/... ./rollout/... ./tui/...
    go run ./bench

lint:
    gofmt -l . | tee /dev/stderr | (! read)
    go vet ./...

# Everything CI does.
ci:
    bash .ci/run
