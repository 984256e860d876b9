// Package fake provides a settable clock for tests, examples and
// simulations. It re-uses k8s.io/utils/clock/testing rather than
// re-implementing it.
package fake
