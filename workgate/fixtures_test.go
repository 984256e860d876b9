package workgate_test

import (
	"encoding/json"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/hubplan"
	"github.com/rolloutkit/rolloutkit/workgate"
)

// The config of the cluster-proxy add-on, keyed as the work's
// config-spec-hash annotation keys it, and spec hashes of it as the hub
// computes them (sha256, hex).
const (
	proxyKey = "managedproxyconfigurations.proxy.open-cluster-management.io//cluster-proxy"
	// proxyName is how a message names the config of proxyKey.
	proxyName = "managedproxyconfigurations.proxy.open-cluster-management.io/cluster-proxy"
	deployKey = "addondeploymentconfigs.addon.open-cluster-management.io/open-cluster-management/cluster-proxy"

	hashA = "3f9a1c0e5b7d2468ace13579bdf02468ace13579bdf02468ace13579bdf0a1b2"
	hashB = "8c4e2a6f1d3b5079e8c6a4f2d0b9e7c5a3f1d9b7e5c3a1f9d7b5e3c1a9f7d5b3"
	hashC = "d41d8cd98f00b204e9800998ecf8427ed41d8cd98f00b204e9800998ecf8427e"

	imageV1 = "quay.io/open-cluster-management/cluster-proxy:v0.7.0"
	imageV2 = "quay.io/open-cluster-management/cluster-proxy:v0.8.0"
)

// deploymentJSON is the agent Deployment an add-on manager renders into
// the work, about 2 KB, with "IMAGE" where the (JSON-quoted) image goes.
const deploymentJSON = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"cluster-proxy-proxy-agent",` +
	`"namespace":"open-cluster-management-cluster-proxy","labels":{"open-cluster-management.io/addon":"cluster-proxy",` +
	`"proxy.open-cluster-management.io/component-name":"proxy-agent"}},"spec":{"replicas":3,"selector":{"matchLabels":` +
	`{"open-cluster-management.io/addon":"cluster-proxy","proxy.open-cluster-management.io/component-name":"proxy-agent"}},` +
	`"template":{"metadata":{"labels":{"open-cluster-management.io/addon":"cluster-proxy",` +
	`"proxy.open-cluster-management.io/component-name":"proxy-agent"},"annotations":{"kubectl.kubernetes.io/default-container":"proxy-agent"}},` +
	`"spec":{"serviceAccountName":"cluster-proxy","priorityClassName":"system-cluster-critical","containers":[{"name":"proxy-agent",` +
	`"image":"IMAGE","imagePullPolicy":"IfNotPresent","command":["/proxy-agent"],"args":["--proxy-server-host=proxy-entrypoint.example.com",` +
	`"--proxy-server-port=8091","--agent-identifiers=host=prod-eu-1&host=prod-eu-1.open-cluster-management-cluster-proxy",` +
	`"--ca-cert=/etc/ca/ca.crt","--agent-cert=/etc/tls/tls.crt","--agent-key=/etc/tls/tls.key","--health-server-port=8888",` +
	`"--keepalive-time=1m","--sync-interval=5s","--sync-interval-cap=30s"],"ports":[{"name":"healthz","containerPort":8888}],` +
	`"livenessProbe":{"httpGet":{"path":"/healthz","port":"healthz","scheme":"HTTP"},"initialDelaySeconds":10,"periodSeconds":10},` +
	`"resources":{"requests":{"cpu":"50m","memory":"64Mi"},"limits":{"memory":"256Mi"}},"securityContext":{"allowPrivilegeEscalation":false,` +
	`"readOnlyRootFilesystem":true,"runAsNonRoot":true,"capabilities":{"drop":["ALL"]}},"volumeMounts":[{"name":"ca","mountPath":"/etc/ca",` +
	`"readOnly":true},{"name":"hub","mountPath":"/etc/tls","readOnly":true}]},{"name":"addon-agent","image":"IMAGE",` +
	`"imagePullPolicy":"IfNotPresent","command":["/agent"],"args":["--hub-kubeconfig=/etc/kubeconfig/kubeconfig","--cluster-name=prod-eu-1",` +
	`"--addon-namespace=open-cluster-management-cluster-proxy","--enable-kube-api-proxy=true","--enable-port-forward-proxy=false"],` +
	`"resources":{"requests":{"cpu":"10m","memory":"32Mi"}},"volumeMounts":[{"name":"hub-kubeconfig","mountPath":"/etc/kubeconfig",` +
	`"readOnly":true}]}],"tolerations":[{"key":"node-role.kubernetes.io/infra","operator":"Exists","effect":"NoSchedule"}],` +
	`"volumes":[{"name":"ca","secret":{"secretName":"cluster-proxy-ca"}},{"name":"hub","secret":{"secretName":"cluster-proxy-open-cluster-management.io-proxy-agent-signer-client-cert"}},` +
	`{"name":"hub-kubeconfig","secret":{"secretName":"cluster-proxy-hub-kubeconfig"}}]}}}}`

// deployment is the agent Deployment running image.
func deployment(image string) []byte {
	quoted, err := json.Marshal(image)
	if err != nil {
		panic(err) // a string always marshals
	}
	return []byte(strings.ReplaceAll(deploymentJSON, `"IMAGE"`, string(quoted)))
}

// work is the cluster-proxy agent's work on prod-eu-1, running image,
// with annotation as its config-spec-hash annotation ("" for none).
func work(image, annotation string) *workv1.ManifestWork {
	w := &workv1.ManifestWork{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "prod-eu-1", Name: "addon-cluster-proxy-deploy-0", Generation: 4, ResourceVersion: "81234",
			Labels: map[string]string{"open-cluster-management.io/addon-name": "cluster-proxy"},
		},
		Spec: workv1.ManifestWorkSpec{Workload: workv1.ManifestsTemplate{
			Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: deployment(image)}}},
		}},
	}
	if annotation != "" {
		w.Annotations = map[string]string{workv1.ManifestConfigSpecHashAnnotationKey: annotation}
	}
	return w
}

// hashes is the config-spec-hash annotation of hashes.
func hashes(h map[string]string) string {
	b, err := json.Marshal(h)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return string(b)
}

// update is an update of the work from stored to proposed.
func update(stored, proposed *workv1.ManifestWork) workgate.Request {
	return workgate.Request{Operation: workgate.Update, Old: stored, New: proposed}
}

// create is a create of the work w.
func create(w *workv1.ManifestWork) workgate.Request {
	return workgate.Request{Operation: workgate.Create, New: w}
}

// relabelled is w with its labels set to labels (a nil value: dropped).
func relabelled(w *workv1.ManifestWork, labels map[string]*string) *workv1.ManifestWork {
	w = w.DeepCopy()
	for k, v := range labels {
		if v == nil {
			delete(w.Labels, k)
			continue
		}
		w.Labels[k] = *v
	}
	return w
}

// prodEU1 is what the rollout says of cluster prod-eu-1 in group prod,
// which waits for group stg, for the cluster-proxy add-on it takes: it
// was handed desired, and its configs are at current.
// opts change the rest.
func prodEU1(desired, current map[string]string, opts ...func(*workgate.Cluster)) workgate.Cluster {
	c := workgate.Cluster{
		AddOn: "cluster-proxy", Name: "prod-eu-1", Taken: true, Group: "prod",
		Desired: desired, Current: current,
		Waits: "waiting for group stg: 2 of 3 clusters succeeded, 1 progressing",
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Options of prodEU1.
func notTaken(c *workgate.Cluster)   { c.Taken = false }
func free(c *workgate.Cluster)       { c.Renderings = workgate.RenderingsFree }
func ungrouped(c *workgate.Cluster)  { c.Group, c.Waits = "", "" }
func configured(c *workgate.Cluster) { c.Configured = true }

// rendering is the rendering revision in flight in the cases.
const rendering = "5e1f0a2b3c4d"

// pending: rendering revision rendering is in flight and has not
// released the cluster.
// handing: the cluster's add-on does not report the handed configs
// applied yet.
func handing(c *workgate.Cluster) { c.Handing = true }

func pending(c *workgate.Cluster) {
	c.Reach, c.Rendering = hubplan.ReachPending, rendering
}

// released: rendering revision rendering released the cluster when its
// works were as at (nil: none); the cluster is not done yet.
func released(at ...*workv1.ManifestWork) func(*workgate.Cluster) {
	return func(c *workgate.Cluster) {
		c.Reach, c.Rendering = hubplan.ReachReleased, rendering
		c.Release = hubplan.Release{Revision: rendering, Works: map[string]string{}}
		for _, w := range at {
			c.Release.Works[w.Name] = hubplan.WorkContent(w)
		}
	}
}

// took: rendering revision rendering released the cluster, and it is done.
func took(c *workgate.Cluster) {
	c.Reach, c.Rendering = hubplan.ReachDone, rendering
}

// at is the hashes of the proxy config alone at h.
func at(h string) map[string]string { return map[string]string{proxyKey: h} }
