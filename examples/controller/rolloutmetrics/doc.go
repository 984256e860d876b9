// Package rolloutmetrics holds the controller's rollout metrics: each
// group's phase, its clusters by status and what it waits for, pending
// approvals, breaches, verification results and the verifications
// failing now, when each group's wait ends, the time from a revision's
// start to its completion, whether each AddOnRollout is valid and paused,
// and the ManifestWork writes the work gate refused. The add-on reconciler
// sets them from the status it plans (Metrics.Observe), and deletes the
// series of a group or an add-on that is gone; a nil *Metrics records
// nothing.
package rolloutmetrics
