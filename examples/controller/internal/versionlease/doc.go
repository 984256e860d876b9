// Package versionlease publishes on the hub which build each replica of
// the controller runs, for `kubectl rolloutkit version` to read.
//
// Every replica, leader or not, records its build (buildinfo.Info) and the
// time it last did so in one annotation of its own,
// replicas.rolloutkit.io/REPLICA (REPLICA: the pod's name), on one Lease,
// rolloutkit-controller-versions, in the controller's namespace, and
// renews it every minute (Publisher). A replica that stops cleanly
// removes its annotation; one that crashed leaves it to go stale (Read
// says so), and the others remove it after an hour. During a rolling
// upgrade the Lease so lists the old replicas and the new, each with its
// version.
//
// # Why a Lease of its own
//
// It is readable before any add-on or AddOnRollout exists, and it takes
// the least RBAC: the controller creates Leases in its namespace already
// (leader election) and may patch only this one by name; a reader needs
// get on this one name only (config/rbac/viewer_role.yaml). Each replica
// writes with a JSON merge patch of its own annotation, so replicas never
// conflict with one another, and nothing is written to the
// leader-election Lease, whose renewals must not meet a conflict.
package versionlease
