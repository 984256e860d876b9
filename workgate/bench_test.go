package workgate_test

import (
	"testing"

	"github.com/rolloutkit/rolloutkit/workgate"
)

// BenchmarkDecide decides a write of the cluster-proxy agent's work (a
// Deployment of about 2 KB) as the webhook does: a re-render that changes
// nothing, a handover admitted, the prod case held, a create admitted and
// held (a work re-created during a halt), and the first change of a
// released cluster (its content digest compared with the release's).
func BenchmarkDecide(b *testing.B) {
	onA, onB := hashes(at(hashA)), hashes(at(hashB))
	for _, bb := range []struct {
		name    string
		req     workgate.Request
		cluster workgate.Cluster
		want    workgate.Reason
	}{
		{name: "unchanged", req: update(work(imageV1, onA), work(imageV1, onA)),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ContentUnchanged},
		{name: "admitted", req: update(work(imageV1, onA), work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB)), want: workgate.HandedOver},
		{name: "held", req: update(work(imageV1, onA), work(imageV2, onA)),
			cluster: prodEU1(at(hashA), at(hashB)), want: workgate.ConfigMovedOn},
		{name: "create admitted", req: create(work(imageV2, onB)),
			cluster: prodEU1(at(hashB), at(hashB), configured), want: workgate.Created},
		{name: "create held", req: create(work(imageV2, onA)),
			cluster: prodEU1(at(hashA), at(hashB), configured), want: workgate.ConfigMovedOn},
		{name: "released, first change", req: update(work(imageV1, onA), work(imageV2, onA)),
			cluster: prodEU1(at(hashA), at(hashA), released(work(imageV1, onA))), want: workgate.RenderingReleased},
	} {
		b.Run(bb.name, func(b *testing.B) {
			if got := workgate.Decide(bb.req, bb.cluster).Reason; got != bb.want {
				b.Fatalf("decided %v, want %v", got, bb.want)
			}
			b.SetBytes(int64(len(bb.req.New.Spec.Workload.Manifests[0].Raw)))
			b.ReportAllocs()
			for b.Loop() {
				workgate.Decide(bb.req, bb.cluster)
			}
		})
	}
}
