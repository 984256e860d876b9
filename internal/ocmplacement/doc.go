// Package ocmplacement holds TestRefusesBesideOCMPlacementController: it
// runs OCM v1.2.0's own placement controller (open-cluster-management.io/ocm,
// pkg/cmd/hub's NewPlacementController, through library-go's
// controllercmd and its Lease open-cluster-management-hub/placement-lock)
// on a real kube-apiserver with OCM's CRDs, and the rolloutkit controller
// binary (examples/controller) beside it, and checks that -placements
// refuses to start while OCM's controller holds that Lease.
//
// It is a module of its own, apart from internal/conformance, because
// OCM's command package (pkg/cmd/hub) builds only with the versions OCM
// v1.2.0 asks for (Kubernetes v0.34, open-cluster-management.io/api and
// sdk-go v1.2.0): library-go's controllercmd needs k8s.io/apiserver, which
// does not build beside the library's k8s.io/apimachinery v0.37, and the
// command's registration packages do not build with sdk-go v1.3.0. This
// module does not import the library; it runs the controller as a
// program, built from its own module.
//
// It needs the test API server (hack/test-apiserver.sh; KUBEBUILDER_ASSETS):
// without it the test skips, or fails when ROLLOUTKIT_REQUIRE_APISERVER is
// set, as in internal/sidebyside.
//
//	cd internal/ocmplacement && go test ./...
package ocmplacement
