// Package testprom starts a real Prometheus server for tests: the binary
// that hack/test-prometheus.sh builds from the github.com/prometheus/prometheus
// Go module, run on a free port of 127.0.0.1 with one scrape job over the
// plain-HTTP /metrics endpoints the test itself serves.
//
// A test calls ForTest (or Binary and Start), then WaitForTarget so that its
// first query does not race the first scrape, then Query. Without the
// binary ForTest skips the test and says so, or fails it when
// ROLLOUTKIT_REQUIRE_APISERVER is set, as CI sets it.
package testprom
