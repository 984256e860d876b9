// Package alerts tests the controller's alert rules, the PrometheusRule of
// examples/controller/config/components/prometheus: every rule's
// expression with Prometheus's own PromQL parser, the rule file with its
// rule-file validation (rulefmt, as Prometheus loads it), each alert's
// annotations and runbook, and the alerts' behaviour with promtool test
// rules (testdata/alerts_test.yaml) run by promtool built from the same
// Prometheus module as the controller's test Prometheus
// (hack/test-prometheus.sh).
//
// It is a module of its own so that Prometheus's rule and template
// packages, and what they pull in, never enter the library's go.mod or the
// controller's. It has no code but its tests.
package alerts
