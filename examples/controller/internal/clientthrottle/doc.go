// Package clientthrottle makes client-go's client-side rate limiting
// visible: it wraps a rest.Config's rate limiter so that every wait for a
// token is observed in a histogram, rolloutkit_client_throttle_seconds.
//
// A rollout that waits on its own client looks, from the outside, like a
// slow API server; the histogram tells the two apart. Its count is the
// requests made, its sum the seconds they spent waiting for the client's
// -kube-api-qps and -kube-api-burst.
//
// One limiter serves every client made from the config, so the rate is
// the process's, whichever resources it reads and writes; client-go, given
// only QPS and Burst, would give each resource's client a bucket of its
// own.
package clientthrottle
