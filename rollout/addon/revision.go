package addon

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
)

// Revision returns the revision of a placement's rollout: the first 12
// hex digits of the SHA-256 of its desired configs, each written as
// "group/resource namespace/name specHash", sorted. It changes when a
// config is added, removed, replaced or its spec changes, and not when
// the configs are listed in another order.
func Revision(desired []Config) string {
	lines := make([]string, len(desired))
	for i, c := range desired {
		lines[i] = c.GroupResource.Group + "/" + c.GroupResource.Resource + " " + c.Referent.Namespace + "/" + c.Referent.Name + " " + c.SpecHash
	}
	slices.Sort(lines)
	sum := sha256.Sum256([]byte(strings.Join(lines, "\n")))
	return hex.EncodeToString(sum[:])[:12]
}
