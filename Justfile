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

# The scale curves (issue 25): agents 1→2,000, turns 10→5,000, sessions
# 100→100,000, tool output 1→100 MiB, long-session and first-command
# costs, bytes per request with and without store_responses;
# zero-latency model. Numbers in docs/benchmarks.md.
scale:
    go test ./core/engine -run '^$' -bench 'Scale|LongSession' -benchtime 1x -timeout 30m
    go test ./tui -run '^$' -bench PickerFilterOldest -benchtime 1x -timeout 30m
    go test ./core/sandbox -run '^$' -bench FirstCommand -benchtime 20x
    go test ./core/model -run '^$' -bench ResponsesChainBytes -benchtime 1x

lint:
    gofmt -l . | tee /dev/stderr | (! read)
    go vet ./...

# Everything CI does.
ci:
    bash .ci/run
