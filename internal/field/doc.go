// Package field holds what rolloutkit's packages share about user input: the
// error type that names an object, a field, the value and what was
// expected, the parser for OCM's int-or-percent quantities
// (clustersPerDecisionGroup, maxFailures, maxConcurrency), and how a
// message quotes a name ([Name]) or a few of many names ([Names]).
//
// The public packages re-export [Error] as FieldError, so a caller can use
// errors.As with any of them.
package field
