// Package promqlparity checks rolloutkit's PromQL checker,
// internal/promql.Check, against Prometheus's own parser
// (github.com/prometheus/prometheus v0.316.0, promql/parser): on every
// query they must agree whether it is valid.
//
// It is a separate Go module so that the library never depends on
// Prometheus and its dependency tree: only this module requires it, and
// the library is replaced by the working tree (../..). Run it with
//
//	cd internal/promqlparity && go test ./...
//
// What it holds, all in test files:
//
//   - TestParityCorpus runs hand-written queries at the corners of the
//     grammar and testdata/prometheus.txt: the test inputs of Prometheus's
//     parser tests (promql/parser/*_test.go) and the queries of its engine
//     tests (promql/promqltest/testdata/*.test), 2,866 in all.
//   - TestParityRandom runs queries from a seeded generator of the grammar
//     and random mutations of them, half and half (-seed, -queries,
//     default 100,000, -short a tenth, -query to replay one).
//   - FuzzParity runs arbitrary input, seeded with the hand-written
//     queries; .ci/fuzz runs it.
//   - TestDifferences shows each deliberate difference (harness_test.go,
//     differences: X1 and X2, the experimental features the checker
//     accepts and a server refuses unless enabled; N1, the depth bound),
//     and TestUnquotedUTF8Names shows that the checker refuses unquoted
//     UTF-8 names as a server does by default.
//
// The parser the checker must agree with is configured with experimental
// functions and fill modifiers on (referenceOptions); against it only N1
// may explain a disagreement. Each query also goes to the parser as a
// server runs it by default, which may refuse a query both accept only
// when each of its errors is X1 or X2. The tests log how many queries were
// accepted and refused and how often each difference explained one.
package promqlparity
