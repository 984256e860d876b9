// Package buildinfo says which build of the controller module a binary
// is: the module's version, the VCS revision it was built from, whether
// the tree had uncommitted changes, and the Go version. The controller,
// the kubectl plugin and the test hub print it for -version (and
// `kubectl rolloutkit version`), and the controller exports it as the
// metric rolloutkit_build_info and publishes it on the hub.
//
// # Where the values come from
//
// Read takes them from the binary's own build information
// (runtime/debug.ReadBuildInfo): go build stamps the main module's version
// from a VCS tag (examples/controller/vX.Y.Z) and the revision, its time and
// whether the tree was modified from the VCS. A build without the VCS (a
// Docker build, whose context leaves .git out; go run; a test binary) has
// none of these, so a release stamps them at link time:
//
//	go build -ldflags "-X github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo.version=v0.2.0 \
//	  -X github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo.revision=$(git rev-parse HEAD) \
//	  -X github.com/rolloutkit/rolloutkit/examples/controller/internal/buildinfo.modified=false"
//
// which is what hack/build-controller.sh does, for every build of the
// controller's image. A value stamped so wins over the build
// information's.
package buildinfo
