package workgate

import "fmt"

// Reason is why the gate admits or holds an update.
type Reason int

// The reasons, admitted ones first.
const (
	// Exempt: not an update of the work itself (a create, a delete, an
	// update of its status).
	Exempt Reason = iota
	// NotTaken: the work's add-on is not one the controller takes.
	NotTaken
	// ContentUnchanged: spec.workload stays the same.
	ContentUnchanged
	// HandedOver: the work moves to the config specs the rollout handed
	// the cluster, and they are current.
	HandedOver
	// RenderingReleased: a new rendering the rendering rollout released to
	// the cluster.
	RenderingReleased
	// RenderingFree: a new rendering, admitted at once under RenderingsFree.
	RenderingFree

	// NotHandedOver: the work claims config specs other than those the
	// rollout handed the cluster.
	NotHandedOver
	// ConfigMovedOn: a config the cluster was handed has a newer spec,
	// which the rollout has not handed the cluster yet.
	ConfigMovedOn
	// RenderingHeld: a new rendering of unchanged configs that the
	// rendering rollout has not released to the cluster yet.
	RenderingHeld
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
	case RenderingReleased:
		return "RenderingReleased"
	case RenderingFree:
		return "RenderingFree"
	case NotHandedOver:
		return "NotHandedOver"
	case ConfigMovedOn:
		return "ConfigMovedOn"
	case RenderingHeld:
		return "RenderingHeld"
	case Unreadable:
		return "Unreadable"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Admits reports whether an update of this reason lands.
func (r Reason) Admits() bool { return r >= Exempt && r <= RenderingFree }

// Decision is the gate's answer to one request.
type Decision struct {
	// Reason is why.
	Reason Reason
	// Message says, for a held update, what is held and what it waits
	// for, in one line; "" when the update is admitted.
	Message string
}

// Allowed reports whether the update lands.
func (d Decision) Allowed() bool { return d.Reason.Admits() }
