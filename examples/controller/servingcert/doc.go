// Package servingcert keeps a webhook server's serving certificate without
// cert-manager, in the manner of OPA Gatekeeper's cert-controller: a
// Rotator makes a CA and a serving certificate signed by it, keeps both in
// one Secret, writes the serving pair where controller-runtime's webhook
// server reads it, and puts the CA in the caBundle of every webhook of the
// webhook configurations it names, validating and mutating.
//
// # Replicas
//
// Every replica runs a Rotator (it needs no leader election), and they all
// serve the certificate of the one Secret: the first to find it missing
// creates it, and one that loses a race (AlreadyExists, or Conflict on an
// update) reads the winner's Secret and serves that. The Secret is read
// from the API server, never from a cache, so that the controller needs
// get on that one Secret and not list and watch on every Secret of its
// namespace.
//
// # Rotation
//
// Ensure checks the Secret and renews what needs it:
//
//   - the serving certificate when less than RenewBefore of it remains,
//     when it does not cover every one of Hosts, or when it no longer
//     verifies against the CA;
//   - the CA when less than Validity+RenewBefore of it remains (so that no
//     serving certificate outlives its CA), together with a new serving
//     certificate. The old CA stays in the bundle beside the new one, so
//     that a replica still serving a certificate of the old CA is trusted
//     until it reads the new Secret.
//
// The CA bundle goes into the configurations before the files change, so
// that the API server trusts a new certificate before anyone serves it.
// Start checks at once, then every CheckEvery (after a failure, after
// RetryEvery); Watch makes a change of the configuration (created,
// replaced, edited) start a check at once, so that a configuration that
// lost its caBundle gets it back within a second.
//
// # Before the manager starts
//
// controller-runtime's webhook server reads tls.crt and tls.key when it
// starts, and fails without them; its certwatcher reloads them when they
// change. Call Ensure once before the manager starts, so that the files
// are there, then add the Rotator to the manager to keep them fresh.
package servingcert
