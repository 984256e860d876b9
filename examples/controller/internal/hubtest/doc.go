// Package hubtest holds what the controller packages' tests share: fake
// hubs, seed objects and readers of their metrics. It is imported by
// tests only.
package hubtest
