package hubclient

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// MaxEventAction is the longest action events.k8s.io takes (EventAction).
const MaxEventAction = 128

// EventAction joins the words of an event's action, e.g.
// `open-cluster-management-addon/rollout "stg" Waiting->Active 1a2b3c4d5e6f`.
// One longer than the API takes keeps its start and ends with a hash of the
// whole, so that two actions still differ.
func EventAction(words ...string) string {
	a := strings.Join(words, " ")
	if len(a) <= MaxEventAction {
		return a
	}
	sum := sha256.Sum256([]byte(a))
	return a[:MaxEventAction-13] + "~" + hex.EncodeToString(sum[:])[:12]
}
