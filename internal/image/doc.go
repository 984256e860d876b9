// Command image packs the controller's static binary into an OCI image,
// without Docker and without pulling anything: the base is empty, and the
// one layer holds the binary alone, at /rolloutkit-controller. It writes
// the image as an OCI image layout, in a tar file.
//
//	hack/build-controller.sh bin/rolloutkit-controller
//	go -C internal/image run . -binary ../../bin/rolloutkit-controller \
//	  -version v0.2.0 -revision "$(git rev-parse HEAD)" -created "$(git log -1 --format=%cI)" \
//	  -o ../../dist/rolloutkit-controller-v0.2.0.oci.tar
//
// hack/release.sh runs both. The binary brings what a distroless base
// would: it embeds time/tzdata and CA roots (golang.org/x/crypto's
// x509roots/fallback) for the verification client, so the image needs
// no file but it. The image runs as 65532:65532 (distroless's nonroot,
// which the Deployment's securityContext names too), with the OCI labels
// org.opencontainers.image.version, .revision, .source and .created; its
// platform is the binary's (linux, and the ELF machine's architecture).
//
// The output is a function of its inputs: every time in it (the config's
// created, the layer's file times) is -created, the commit's time, so
// that two builds of a commit give the same bytes and the same digest.
//
// Push it where a registry is reachable with go-containerregistry's crane,
// from the layout (README, "Releasing"):
//
//	mkdir layout && tar -xf rolloutkit-controller-v0.2.0.oci.tar -C layout
//	crane push layout ghcr.io/rolloutkit/controller:v0.2.0
//
// It is a module of its own, so that go-containerregistry enters neither
// the library's go.mod nor the controller's.
package main
