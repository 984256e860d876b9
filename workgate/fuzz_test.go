package workgate_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/rolloutkit/rolloutkit/workgate"
)

// FuzzDecide feeds Decide a create's or an update's old and new config-spec-hash
// annotations, which the add-on's manager writes and anyone who may write
// works in the cluster's namespace can set to anything, old and new
// images, and what the rollout says of one config of the cluster. An
// annotation "" is none. Decide must not panic, must give the same
// decision twice without modifying its input, must explain exactly the
// updates it holds, in one line, and may admit a change of content of a
// taken add-on only when the new annotation is exactly the desired hashes
// and they are current.
func FuzzDecide(f *testing.F) {
	const create, notTaken, update byte = 0, 4, 5
	// op chooses a request: an update of the work of a taken add-on, the
	// one that matters, thrice as often as each other but a create.
	ops := [...]struct {
		operation, subResource string
		noOld, noNew, notTaken bool
	}{
		create:   {operation: workgate.Create, noOld: true},
		8:        {operation: workgate.Create, noOld: true},
		1:        {operation: workgate.Delete, noNew: true},
		2:        {operation: workgate.Update, subResource: "status"},
		3:        {operation: workgate.Update, noOld: true},
		notTaken: {operation: workgate.Update, notTaken: true},
		update:   {operation: workgate.Update},
		6:        {operation: workgate.Update},
		7:        {operation: workgate.Update},
	}
	onA, onB, onC := hashes(at(hashA)), hashes(at(hashB)), hashes(at(hashC))
	staged, free := byte(workgate.RenderingsStaged), byte(workgate.RenderingsFree)
	f.Add(byte(1), onA, onB, imageV1, imageV2, hashA, hashB, true, false, staged)               // Exempt
	f.Add(create, onA, onB, imageV1, imageV2, hashB, hashB, true, false, staged)                // Created
	f.Add(notTaken, onA, `{`, imageV1, imageV2, hashA, hashB, true, false, staged)              // NotTaken
	f.Add(update, onA, onB, imageV1, imageV1, hashA, hashB, true, false, staged)                // ContentUnchanged
	f.Add(update, onA, onB, imageV1, imageV2, hashB, hashB, true, false, staged)                // HandedOver
	f.Add(update, onA, onA, imageV1, imageV2, hashA, hashA, true, true, staged)                 // RenderingReleased
	f.Add(update, onA, onA, imageV1, imageV2, hashA, hashA, true, false, free)                  // RenderingFree
	f.Add(update, onA, onC, imageV1, imageV2, hashB, hashB, true, false, staged)                // NotHandedOver
	f.Add(update, onA, onA, imageV1, imageV2, hashA, hashB, true, false, staged)                // ConfigMovedOn
	f.Add(update, onA, onA, imageV1, imageV2, hashA, hashA, true, false, staged)                // RenderingHeld
	f.Add(update, onA, `{"`+proxyKey+`":`, imageV1, imageV2, hashA, hashA, true, false, staged) // Unreadable
	f.Add(update, onA, onA, imageV1, imageV2, hashA, "", false, false, staged)                  // Unreadable
	// A key with a line break, a hash with a line separator.
	f.Add(update, onA, `{"`+proxyKey+`":"","b\n":"x\u2028"}`, imageV1, imageV2, "", "", true, true, staged)
	// Two images that are one in JSON; a Renderings out of range.
	f.Add(update, onA, `{"`+proxyKey+`":"","b\n":"x"}`, "\xff", "\xfe", "", "", true, true, byte(2))
	// No annotations.
	f.Add(update, "", "", imageV1, imageV2, hashA, hashA, true, false, staged)
	f.Fuzz(func(t *testing.T, op byte, oldAnnotation, newAnnotation, oldImage, newImage, desired, current string,
		hasCurrent, released bool, renderings byte) {
		o := ops[int(op)%len(ops)]
		req := workgate.Request{Operation: o.operation, SubResource: o.subResource}
		if !o.noOld {
			req.Old = work(oldImage, oldAnnotation)
		}
		if !o.noNew {
			req.New = work(newImage, newAnnotation)
		}
		c := prodEU1(at(desired), map[string]string{}, func(c *workgate.Cluster) {
			c.Taken, c.Renderings = !o.notTaken, workgate.Renderings(renderings%3)
		})
		if released {
			released_(req.Old)(&c)
		}
		if hasCurrent {
			c.Current[proxyKey] = current
		}

		before, cBefore := deepCopy(req, c)
		d := workgate.Decide(req, c)
		if again := workgate.Decide(req, c); again != d {
			t.Fatalf("two decisions: %v %q, then %v %q", d.Reason, d.Message, again.Reason, again.Message)
		}
		if !reflect.DeepEqual(before, req) || !reflect.DeepEqual(cBefore, c) {
			t.Fatal("Decide modified its input")
		}
		if d.Allowed() != d.Reason.Admits() {
			t.Fatalf("Allowed() %v for %v", d.Allowed(), d.Reason)
		}
		if strings.HasPrefix(d.Reason.String(), "Reason(") {
			t.Fatalf("unknown reason %v", d.Reason)
		}
		switch {
		case d.Allowed() && d.Message != "":
			t.Fatalf("%v with a message: %q", d.Reason, d.Message)
		case !d.Allowed() && !strings.HasPrefix(d.Message, workgate.Marker+": "):
			t.Fatalf("%v with a message without the marker: %q", d.Reason, d.Message)
		case !printable(d.Message):
			t.Fatalf("%v with a message that is not one printable line: %q", d.Reason, d.Message)
		}

		updates := req.Operation == workgate.Update && req.SubResource == "" && req.Old != nil && req.New != nil
		creates := req.Operation == workgate.Create && req.SubResource == "" && req.New != nil
		changes := creates || updates && !bytes.Equal(req.Old.Spec.Workload.Manifests[0].Raw, req.New.Spec.Workload.Manifests[0].Raw)
		if workgate.Judges(req) != changes {
			t.Fatalf("Judges %v, want %v", !changes, changes)
		}
		if !changes {
			if !d.Allowed() {
				t.Fatalf("content unchanged, but %v: %s", d.Reason, d.Message)
			}
			if d := workgate.Decide(req, workgate.Cluster{}); !d.Allowed() {
				t.Fatalf("content unchanged, but %v without a cluster: %s", d.Reason, d.Message)
			}
			return
		}
		if !c.Taken || !d.Allowed() {
			return
		}
		rendered := map[string]string{}
		if newAnnotation != "" {
			if err := json.Unmarshal([]byte(newAnnotation), &rendered); err != nil {
				t.Fatalf("admitted (%v) a work whose annotation %q does not parse: %v", d.Reason, newAnnotation, err)
			}
		}
		if len(rendered) != 1 || rendered[proxyKey] != desired {
			t.Fatalf("admitted (%v) a work at %v, want exactly %v", d.Reason, rendered, c.Desired)
		}
		if cur, ok := c.Current[proxyKey]; !ok || cur != desired {
			t.Fatalf("admitted (%v) a work at %v while the config is at %q (known %v)", d.Reason, rendered, cur, ok)
		}
	})
}

// printable reports whether s is UTF-8 of printable characters only: one
// line, whatever a log or a terminal makes of line separators and
// controls.
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !strconv.IsPrint(r) })
}

// released_ is the option released, for the work stored (nil: none).
func released_(stored *workv1.ManifestWork) func(*workgate.Cluster) {
	if stored == nil {
		return released()
	}
	return released(stored)
}
