package main

import (
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/rolloutkit/rolloutkit/api/v1alpha1"
)

// controlKinds are the resources of the operator's controls, as `kubectl
// get` names them: served only by a hub with rolloutkit's CRDs, where they
// are added to the kinds listed.
const controlKinds = "addonrollouts,rolloutapprovals"

// isControl tells whether obj is an AddOnRollout or a RolloutApproval,
// which exist in rolloutkit.io/v1alpha1 only. They are rolloutkit's own
// types, so a field it does not know is refused rather than ignored: a
// misspelt approvalRequired would otherwise plan the add-on ungated.
func isControl(obj runtime.Object) bool {
	switch obj.(type) {
	case *v1alpha1.AddOnRollout, *v1alpha1.RolloutApproval:
		return true
	}
	return false
}
