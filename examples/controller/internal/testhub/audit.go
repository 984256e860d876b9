package testhub

import (
	"os"
	"path/filepath"
)

// auditPolicy records every write to the hub, and the list and watch
// requests that fill informers: the add-ons' and the Leases' writes with
// their request and response objects (each version of an add-on's status,
// and who held the Lease), every other write and every list and watch with
// its metadata (user, verb, resource, code, times). Reads by get are left
// out: the tests poll with them.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  verbs: [create, update, patch, delete]
  resources:
  - group: addon.open-cluster-management.io
    resources: [managedclusteraddons, managedclusteraddons/status]
  - group: coordination.k8s.io
    resources: [leases]
  omitStages: [RequestReceived, ResponseStarted]
- level: Metadata
  verbs: [create, update, patch, delete, deletecollection]
  omitStages: [RequestReceived, ResponseStarted]
- level: Metadata
  verbs: [list, watch]
- level: None
`

// WithAudit makes the API server write an audit log (AuditLog) of every
// write and every list and watch, one JSON audit.k8s.io/v1 Event a line,
// written before the answer is sent (the log backend's blocking mode). A
// watch is logged when it starts (stage ResponseStarted) and again when
// it ends.
func WithAudit() Option {
	return func(h *Hub) error {
		policy := filepath.Join(h.files, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
			return err
		}
		args := h.env.ControlPlane.GetAPIServer().Configure()
		args.Set("audit-policy-file", policy)
		args.Set("audit-log-path", h.AuditLog())
		args.Set("audit-log-mode", "blocking")
		return nil
	}
}

// AuditLog returns the path of the API server's audit log; there is one
// only on a hub started WithAudit.
func (h *Hub) AuditLog() string {
	return filepath.Join(h.files, "audit.log")
}
