package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// This file is how rolloutctl tells an add-on the hub does not have, and
// the names the user may have meant.

// noAddonError is the error of an add-on the hub does not have.
type noAddonError struct {
	// addOn is the name asked for.
	addOn string
	// names are the hub's ClusterManagementAddOns, sorted.
	names []string
}

// Error names the add-on, the hub's add-ons, and those close to the name
// asked for.
func (e *noAddonError) Error() string {
	found := "none"
	if len(e.names) > 0 {
		found = strings.Join(e.names, ", ")
	}
	msg := fmt.Sprintf("the hub has no ClusterManagementAddOn %q (it has: %s)", e.addOn, found)
	if close := closeNames(e.addOn, e.names); len(close) > 0 {
		msg += "; did you mean " + strings.Join(quoted(close), " or ") + "?"
	}
	return msg
}

// checkAddon refuses (exit code 1) an add-on the hub does not have, as
// pause, resume and approve do: an AddOnRollout or a RolloutApproval of
// a misspelt name holds or approves nothing.
func checkAddon(ctx context.Context, c client.Client, addOn string) error {
	names, err := addonNames(ctx, c)
	if err != nil {
		return err
	}
	if !slices.Contains(names, addOn) {
		return refused("%w", &noAddonError{addOn: addOn, names: names})
	}
	return nil
}

// maxTypos is how many single-character edits a name may be away from
// one of the hub's to be suggested, as cobra suggests subcommands.
const maxTypos = 2

// closeNames returns the names within maxTypos edits of s, or that s is a
// prefix of, in their order.
func closeNames(s string, names []string) []string {
	var out []string
	for _, n := range names {
		if editDistance(strings.ToLower(s), strings.ToLower(n)) <= maxTypos || (s != "" && strings.HasPrefix(n, s)) {
			out = append(out, n)
		}
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// quoted returns each name quoted, in a new slice.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
