// Package rollouthook serves the admission of rolloutkit.io's objects on
// the controller's webhook server ([Register]; config/webhook/admission.yaml
// installs both webhooks): [Validator] refuses an AddOnRollout whose spec
// hubplan.ValidateSpec finds wrong (the add-on reconciler's own checks but
// group names), and [ApproverRecorder] writes into a new RolloutApproval
// the user who creates it. Neither reads the hub.
package rollouthook
