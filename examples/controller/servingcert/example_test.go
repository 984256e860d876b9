package servingcert_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/rolloutkit/rolloutkit/examples/controller/servingcert"
)

// The first check on a new hub makes the Secret, puts the CA in the
// configuration and writes the files; the next finds nothing to do. Ten
// months later, with less than three months left, the certificate is
// renewed from the same CA, which the configuration has already.
func ExampleRotator_Ensure() {
	gate := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "rolloutkit-work-gate"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "manifestworks.gate.rolloutkit.io"}}}
	c := fake.NewClientBuilder().WithObjects(gate).Build()
	dir, err := os.MkdirTemp("", "serving-certs")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	secret := types.NamespacedName{Namespace: "rolloutkit-system", Name: "rolloutkit-webhook-cert"}
	r, err := servingcert.New(c, c, servingcert.Options{
		Secret:         secret,
		Hosts:          []string{"rolloutkit-webhook.rolloutkit-system.svc", "127.0.0.1"},
		CertDir:        dir,
		Configurations: []string{"rolloutkit-work-gate"},
		Clock:          clk,
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, at := range []time.Duration{0, time.Hour, 300 * 24 * time.Hour} {
		clk.SetTime(clk.Now().Add(at))
		res, err := r.Ensure(ctx)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s: %s %q, injected %t, wrote files %t, valid until %s\n",
			clk.Now().Format(time.DateOnly), res.Change, res.Why, res.Injected, res.WroteFiles, res.NotAfter.Format(time.DateOnly))
	}
	var s corev1.Secret
	if err := c.Get(ctx, secret, &s); err != nil {
		panic(err)
	}
	keys := make([]string, 0, len(s.Data))
	for k := range s.Data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Println(s.Type, keys)
	// Output:
	// 2026-03-01: Created "no Secret", injected true, wrote files true, valid until 2027-03-01
	// 2026-03-01: Unchanged "", injected false, wrote files false, valid until 2027-03-01
	// 2026-12-26: Renewed "the serving certificate expires at 2027-03-01T12:00:00Z, in less than 2160h0m0s", injected false, wrote files true, valid until 2027-12-26
	// kubernetes.io/tls [ca.crt ca.key tls.crt tls.key]
}
