// Package field holds what rolloutkit's packages share about user input:
// the parser for OCM's int-or-percent quantities (maxFailures,
// maxConcurrency) and the apimachinery *field.Error that words a bad one
// ([ParsePortion], [InvalidPortion]), how an error names its object once
// around its problems ([Object], [About]), and how a message quotes a name
// ([Name]) or a few of many names ([Names]).
//
// Problems with user input are apimachinery's *field.Error values
// (k8s.io/apimachinery/pkg/util/validation/field) everywhere in
// rolloutkit; this package has no error type of its own.
package field
