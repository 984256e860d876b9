module github.com/rolloutkit/rolloutkit/internal/realhub

go 1.26.0
