package workgate

import (
	"fmt"

	"github.com/rolloutkit/rolloutkit/hubplan"
)

// Reason is why the gate admits or holds a write.
type Reason int

// The reasons, admitted ones first.
const (
	// Exempt: not a create or an update of the work itself (a delete, an
	// update of its status), or not a work of the cluster judged.
	Exempt Reason = iota
	// NotTaken: the work's add-on is not one the controller takes.
	NotTaken
	// ContentUnchanged: spec.workload stays the same, and the work stays
	// the same add-on's and cluster's.
	ContentUnchanged
	// HandedOver: the work moves to the config specs the rollout handed
	// the cluster, and they are current.
	HandedOver
	// Created: a new work (or one relabelled into the add-on or the
	// cluster) that carries the config specs the rollout handed the
	// cluster, and they are current.
	Created
	// RenderingReleased: the first change of a work since the rendering
	// rollout released its cluster.
	RenderingReleased
	// RenderingFree: a new rendering, admitted at once under RenderingsFree.
	RenderingFree

	// NotHandedOver: the work claims config specs other than those the
	// rollout handed the cluster.
	NotHandedOver
	// ConfigMovedOn: a config the cluster was handed has a newer spec,
	// which the rollout has not handed the cluster yet.
	ConfigMovedOn
	// RenderingHeld: a new rendering of unchanged configs that no
	// rendering rollout has released to the cluster.
	RenderingHeld
	// RenderingPending: new content while a rendering revision is rolling
	// out and has not reached the cluster: it would carry the new
	// rendering ahead of the cluster's group, a config handover included.
	RenderingPending
	// RenderingTaken: a further change of a work that changed once since
	// its cluster's release: a further rendering waits for the next
	// revision.
	RenderingTaken
	// Unreadable: the work's annotation or a config could not be read.
	Unreadable
)

// String names the reason.
func (r Reason) String() string {
	switch r {
	case Exempt:
		return "Exempt"
	case NotTaken:
		return "NotTaken"
	case ContentUnchanged:
		return "ContentUnchanged"
	case HandedOver:
		return "HandedOver"
	case Created:
		return "Created"
	case RenderingReleased:
		return "RenderingReleased"
	case RenderingFree:
		return "RenderingFree"
	case NotHandedOver:
		return "NotHandedOver"
	case ConfigMovedOn:
		return "ConfigMovedOn"
	case RenderingHeld:
		return hubplan.HoldRenderingHeld
	case RenderingPending:
		return "RenderingPending"
	case RenderingTaken:
		return hubplan.HoldRenderingTaken
	case Unreadable:
		return "Unreadable"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Admits reports whether a write of this reason lands.
func (r Reason) Admits() bool { return r >= Exempt && r <= RenderingFree }

// Decision is the gate's answer to one request.
type Decision struct {
	// Reason is why.
	Reason Reason
	// Message says, for a held write, what is held and what it waits
	// for, in one line; "" when the write is admitted.
	Message string
	// Why is the part of Message that says why, without the work, the
	// cluster and what its group waits for: what the gate records of the
	// hold (hubplan.Hold.Why). "" when admitted.
	Why string
	// Key names what a held write carries (its configs' spec hashes, the
	// current ones, the rendering revision in flight): the same write
	// held again has the same key, so that the gate records and reports
	// it once. "" when admitted.
	Key string
}

// Allowed reports whether the write lands.
func (d Decision) Allowed() bool { return d.Reason.Admits() }
