package planreport

import (
	"github.com/rolloutkit/rolloutkit/hubplan"
)

// revisionKind says what a placement's revision rolls out, from its Kind
// and its rendering revision, for the status and the offline report: a
// rendering revision of unchanged configs (Rendering), or a config change
// joined with one (ConfigAndRendering). It is "" for a change of configs
// alone (Config, or a status that gives no kind).
func revisionKind(pl Placement) string {
	switch pl.Kind {
	case hubplan.KindRendering:
		return renderingName(pl.Rendering) + " of unchanged configs, held by the work gate until released"
	case hubplan.KindConfigAndRendering:
		return "a config change joined with " + renderingName(pl.Rendering) + ": one revision of both, from the first group"
	}
	return ""
}

// renderingName names a rendering revision: "rendering revision R", or
// "a new rendering" for a status that does not name it.
func renderingName(rendering string) string {
	if rendering == "" {
		return "a new rendering"
	}
	return "rendering revision " + rendering
}
