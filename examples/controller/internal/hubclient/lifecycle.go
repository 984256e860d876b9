package hubclient

import (
	"slices"

	addonv1alpha1 "open-cluster-management.io/api/addon/v1alpha1"
)

// LifecycleAnnotation is the annotation of a ClusterManagementAddOn that
// says which controller installs and rolls it out. OCM v1.2.0's add-on
// manager takes an add-on whose value is "addon-manager" or that has no
// such annotation (addon-framework's utils.ManagedByAddonManager);
// addon-framework's cmamanagedby controller clears the value "self"; this
// controller takes the values it is given (hubctl.Options.Lifecycles, flag
// -lifecycle).
const LifecycleAnnotation = addonv1alpha1.AddonLifecycleAnnotationKey

// DefaultLifecycle is the lifecycle value the controller takes when it is
// given none: a value that OCM's add-on manager does not take, so that the
// two never fight over an add-on.
const DefaultLifecycle = "rolloutkit"

// addonManagerLifecycle is the value OCM's add-on manager takes, and with
// it every add-on without the annotation.
const addonManagerLifecycle = addonv1alpha1.AddonLifecycleAddonManagerAnnotationValue

// Takes tells whether a controller run with -lifecycle values taken
// (empty: DefaultLifecycle) takes the ClusterManagementAddOn with these
// annotations: its lifecycle value is one of taken. An add-on without the
// annotation is OCM's add-on manager's, as for that manager: it is taken
// only when taken names addon-manager, so that on a hub without OCM's
// add-on manager -lifecycle addon-manager takes what OCM would have
// taken. The controller, its dry run and rolloutctl all ask this.
func Takes(taken []string, annotations map[string]string) bool {
	if len(taken) == 0 {
		taken = []string{DefaultLifecycle}
	}
	v, ok := annotations[LifecycleAnnotation]
	if !ok {
		v = addonManagerLifecycle
	}
	return slices.Contains(taken, v)
}
