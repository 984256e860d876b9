package rolloutmetrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// MetricBuildInfo is 1, labelled with the controller's build: version
// (the module's), revision (the VCS revision) and goversion. A query can
// join it to tell which build exports a series, and an upgrade shows as
// its labels changing, replica by replica.
const MetricBuildInfo = "rolloutkit_build_info"

// RegisterBuildInfo registers MetricBuildInfo, set to 1 for the build
// given, with reg (controller-runtime's metrics.Registry, in the
// controller). The same build registered again (a controller run twice in
// one process, as tests run it) is left as it is.
func RegisterBuildInfo(reg prometheus.Registerer, version, revision, goVersion string) error {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: MetricBuildInfo,
		Help:        "1, labelled with the rolloutkit controller's version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": goVersion}})
	g.Set(1)
	var dup prometheus.AlreadyRegisteredError
	if err := reg.Register(g); err != nil && !errors.As(err, &dup) {
		return err
	}
	return nil
}
