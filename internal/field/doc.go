// Package field holds what rolloutkit's packages share about user input: the
// error type that names an object, a field, the value and what was
// expected, and the parser for OCM's int-or-percent quantities
// (clustersPerDecisionGroup, maxFailures, maxConcurrency).
//
// The public packages re-export [Error] as FieldError, so a caller can use
// errors.As with any of them.
package field
