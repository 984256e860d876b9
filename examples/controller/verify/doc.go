// Package verify runs the verifications of AddOnRollouts that the library
// finds due (hubplan.Check): a webhook called with the group's revision,
// or a Prometheus query that must return a true sample. [Verifier] is the
// only I/O of a verification; whether a result holds the rollout is
// hubplan's decision. [PromQL] is the query validator the add-on
// reconciler, the admission webhook and the dry run give hubplan, with
// Prometheus's own parser.
//
// A check may authenticate and choose the CAs it trusts (a bearer token,
// basic auth, headers, a CA bundle): [Credentials] reads the Secrets and
// ConfigMaps it names, by name and only in the namespaces it allows, and
// makes its client with Prometheus's http_config. No credential value is
// ever part of a result's message.
package verify
