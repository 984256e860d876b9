package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/internal/field"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// line is one line of the timeline: an offset from the start and a text.
type line struct {
	at   time.Duration
	text string
}

// timeline renders res one event a line, or in summary the events of one
// kind in one group at one instant as one line; then the outcome. A
// group's completion says how long its last cluster soaked.
func timeline(res simulate.Result, summary bool) []line {
	labels := simulate.GroupLabels(res.Groups)
	label := func(k grouping.GroupKey) string {
		if l, ok := labels[k]; ok {
			return l
		}
		return k.String()
	}
	lastSuccess := map[grouping.GroupKey]time.Time{}
	var out []line
	for _, b := range batches(details(res), summary) {
		e := b[0]
		var text string
		switch {
		case e.Cluster == "" && (e.Kind == simulate.Breach || e.Kind == simulate.BreachCleared):
			text = verb(e.Kind) + " in group " + label(e.Group)
		case e.Cluster == "":
			text = verb(e.Kind) + " group " + label(e.Group)
		case len(b) > 3:
			text = fmt.Sprintf("%s %d clusters in %s (%s)", verb(e.Kind), len(b), label(e.Group), clusterNames(b))
		default:
			text = verb(e.Kind) + " " + clusterNames(b) + " (" + label(e.Group) + ")"
		}
		if d := b.detail(); d != "" {
			text += ": " + d
		}
		switch e.Kind {
		case simulate.Succeeded, simulate.Recovered:
			lastSuccess[e.Group] = e.At
		case simulate.GroupCompleted:
			if t, ok := lastSuccess[e.Group]; ok && e.At.After(t) {
				text += ", soaked " + duration(e.At.Sub(t))
			}
		}
		out = append(out, line{at: e.At.Sub(res.Start), text: text})
	}
	out = append(out, line{at: res.End.Sub(res.Start), text: fmt.Sprintf("%s (%d planner calls)", res.Reason, res.Plans)})
	return out
}

// batch is the events that one line of the timeline tells.
type batch []simulate.Event

// detail is the detail the events of b share, or "" when they differ.
func (b batch) detail() string {
	for _, e := range b[1:] {
		if e.Detail != b[0].Detail {
			return ""
		}
	}
	return b[0].Detail
}

// details returns the events of res with the detail of a time-out told
// again with this timeline's offsets ("failed since +9m"): the simulator
// writes its own. The other details hold no offset.
func details(res simulate.Result) []simulate.Event {
	type since struct {
		status string
		at     time.Time
	}
	last := map[string]since{}
	out := make([]simulate.Event, len(res.Events))
	for i, e := range res.Events {
		switch e.Kind {
		case simulate.Progressing, simulate.Failed:
			last[e.Cluster] = since{verb(e.Kind), e.At}
		case simulate.TimedOut:
			if l, ok := last[e.Cluster]; ok {
				e.Detail = l.status + " since " + offset(l.at.Sub(res.Start)) + ", past the progressDeadline"
			}
		}
		out[i] = e
	}
	return out
}

// batches cuts events into lines: one event each, or in summary the cluster
// events of one kind in one group at one instant together, where the first
// of them was.
func batches(events []simulate.Event, summary bool) []batch {
	type key struct {
		kind  simulate.EventKind
		group grouping.GroupKey
	}
	out := make([]batch, 0, len(events))
	var at map[key]int // the batch of each key, at one instant
	for i, e := range events {
		if !summary || e.Cluster == "" {
			out = append(out, batch{e})
			continue
		}
		if i == 0 || !e.At.Equal(events[i-1].At) || at == nil {
			at = map[key]int{}
		}
		k := key{e.Kind, e.Group}
		if j, ok := at[k]; ok {
			out[j] = append(out[j], e)
			continue
		}
		at[k] = len(out)
		out = append(out, batch{e})
	}
	return out
}

// clusterNames names the clusters of a batch: up to three, else the first
// two and the last.
func clusterNames(b batch) string {
	name := func(i int) string { return field.Name(b[i].Cluster) }
	switch len(b) {
	case 1:
		return name(0)
	case 2:
		return name(0) + " and " + name(1)
	case 3:
		return name(0) + ", " + name(1) + " and " + name(2)
	}
	return name(0) + ", " + name(1) + ", ..., " + name(len(b)-1)
}

// verb is the word of the timeline for an event kind.
func verb(k simulate.EventKind) string {
	switch k {
	case simulate.Applied:
		return "applied"
	case simulate.Progressing:
		return "progressing"
	case simulate.Succeeded:
		return "succeeded"
	case simulate.Failed:
		return "failed"
	case simulate.TimedOut:
		return "timed out"
	case simulate.Recovered:
		return "recovered"
	case simulate.GroupStarted:
		return "started"
	case simulate.GroupCompleted:
		return "completed"
	case simulate.Breach:
		return "breach"
	case simulate.GateHeld:
		return "held"
	case simulate.BreachCleared:
		return "breach cleared"
	}
	return k.String()
}

// writeTimeline writes the lines indented, their offsets aligned on the
// right.
func writeTimeline(w io.Writer, lines []line) error {
	width := 0
	for _, l := range lines {
		width = max(width, len(offset(l.at)))
	}
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "   %*s %s\n", width, offset(l.at), l.text)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// groupTimes writes when each group started and completed.
func groupTimes(w io.Writer, res simulate.Result) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "   group\tstarted\tcomplete")
	at := func(t time.Time) string {
		if t.IsZero() {
			return "-"
		}
		return offset(t.Sub(res.Start))
	}
	for _, g := range res.Groups {
		fmt.Fprintf(tw, "   %s\t%s\t%s\n", g.GroupKey, at(g.Started), at(g.Finished))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n   %s\n", res.Reason)
	return nil
}

// offset formats a time since the start as "+7m" or "+1h05m": a clock
// format such as +07:00 would read as seven hours, or as a UTC offset.
func offset(d time.Duration) string { return "+" + duration(d) }

// duration formats d to the second as 30s, 7m, 7m30s, 1h05m or 64h10m05s:
// minutes and seconds are two digits after a larger unit, and a zero
// second is left out.
func duration(d time.Duration) string {
	neg := ""
	if d < 0 {
		neg, d = "-", -d
	}
	d = d.Round(time.Second)
	h, m, s := int64(d/time.Hour), int64(d%time.Hour/time.Minute), int64(d%time.Minute/time.Second)
	var out string
	switch {
	case h > 0:
		out = fmt.Sprintf("%dh%02dm", h, m)
	case m > 0 || s == 0:
		out = fmt.Sprintf("%dm", m)
	}
	switch {
	case s > 0 && out != "":
		out += fmt.Sprintf("%02ds", s)
	case s > 0:
		out = fmt.Sprintf("%ds", s)
	}
	return neg + out
}
