package main

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"sort"
	"time"

	"github.com/rolloutkit/rolloutkit/grouping"
	"github.com/rolloutkit/rolloutkit/rollout/simulate"
)

// Chart geometry and colours.
const (
	svgWidth   = 1100
	leftMargin = 200
	rightPad   = 30
	topMargin  = 70
	rowHeight  = 18
	barHeight  = 12
	legendH    = 40

	// A row per group, with -detail summary.
	groupRowHeight = 30
	groupBarHeight = 24
)

type segmentKind int

const (
	progressingSeg segmentKind = iota
	soakingSeg
	failedSeg
	succeededSeg
)

// colour and name of each segment kind, for bars and the legend.
func (k segmentKind) colour() string {
	switch k {
	case progressingSeg:
		return "#4a90d9"
	case soakingSeg:
		return "#f0c040"
	case failedSeg:
		return "#d9534f"
	}
	return "#5cb85c"
}

func (k segmentKind) String() string {
	switch k {
	case progressingSeg:
		return "progressing"
	case soakingSeg:
		return "soaking (minSuccessTime)"
	case failedSeg:
		return "failed"
	}
	return "succeeded"
}

type segment struct {
	kind       segmentKind
	from, till time.Time
}

// clusterBars turns the timeline into one list of coloured segments per
// cluster, and the times at which each cluster timed out.
func clusterBars(res simulate.Result, minSuccess time.Duration) (map[string][]segment, map[string][]time.Time) {
	bars := map[string][]segment{}
	timeouts := map[string][]time.Time{}
	open := map[string]*segment{}
	closeAt := func(c string, t time.Time) {
		if s := open[c]; s != nil {
			s.till = t
			bars[c] = append(bars[c], *s)
			delete(open, c)
		}
	}
	succeed := func(c string, t time.Time) {
		closeAt(c, t)
		soakEnd := t.Add(minSuccess)
		if minSuccess > 0 {
			if soakEnd.After(res.End) {
				soakEnd = res.End
			}
			bars[c] = append(bars[c], segment{kind: soakingSeg, from: t, till: soakEnd})
		}
		open[c] = &segment{kind: succeededSeg, from: soakEnd}
	}
	for _, e := range res.Events {
		switch e.Kind {
		case simulate.Applied:
			closeAt(e.Cluster, e.At)
			open[e.Cluster] = &segment{kind: progressingSeg, from: e.At}
		case simulate.Succeeded, simulate.Recovered:
			succeed(e.Cluster, e.At)
		case simulate.Failed:
			closeAt(e.Cluster, e.At)
			open[e.Cluster] = &segment{kind: failedSeg, from: e.At}
		case simulate.TimedOut:
			timeouts[e.Cluster] = append(timeouts[e.Cluster], e.At)
		}
	}
	for c := range open {
		closeAt(c, res.End)
	}
	return bars, timeouts
}

// writeSVG draws the simulated rollout: one row per cluster, grouped by
// decision group, or with byGroup one row per group, whose bars stack the
// share of its clusters in each state. Bars are coloured for progressing,
// soaking, failed and succeeded, a mark shows where clusters timed out, and
// a dashed line where each group started.
func writeSVG(out io.Writer, res simulate.Result, groups []grouping.Group, minSuccess time.Duration, byGroup bool) error {
	w := bufio.NewWriter(out)
	c := newChart(w, res, bodyHeight(groups, byGroup))
	c.header()
	c.timeAxis()
	c.groupStarts()
	bars, timeouts := clusterBars(res, minSuccess)
	y := topMargin
	for _, g := range groups {
		if byGroup {
			y = c.groupRow(y, g, bars, timeouts)
		} else {
			y = c.clusterRows(y, g, bars, timeouts)
		}
	}
	c.legend(y+20, byGroup)
	fmt.Fprintln(w, `</svg>`)
	return w.Flush()
}

// bodyHeight is the height of the chart's rows: a row per group with
// byGroup, else a row per cluster and a gap above each group.
func bodyHeight(groups []grouping.Group, byGroup bool) int {
	if byGroup {
		return len(groups) * groupRowHeight
	}
	rows := 0
	for _, g := range groups {
		rows += len(g.Clusters)
	}
	return rows*rowHeight + len(groups)*4
}

// chart is an SVG being drawn: where it goes, the rollout, the time it
// spans (a minute at least), and the height of its rows.
type chart struct {
	w    *bufio.Writer
	res  simulate.Result
	span time.Duration
	body int
}

func newChart(w *bufio.Writer, res simulate.Result, body int) chart {
	return chart{w: w, res: res, span: max(res.End.Sub(res.Start), time.Minute), body: body}
}

// x is the abscissa of t.
func (c chart) x(t time.Time) float64 {
	plotW := float64(svgWidth - leftMargin - rightPad)
	return leftMargin + plotW*float64(t.Sub(c.res.Start))/float64(c.span)
}

// header opens the SVG, on a white background, with the rollout's outcome
// as its title.
func (c chart) header() {
	height := topMargin + c.body + legendH + 20
	fmt.Fprintf(c.w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgWidth, height, svgWidth, height)
	fmt.Fprintf(c.w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(c.w, `<text x="10" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", html.EscapeString("cluster-proxy rollout: "+c.res.Reason))
}

// timeAxis draws a labelled vertical line at every tick of the time axis.
func (c chart) timeAxis() {
	step := tickStep(c.span)
	for t := time.Duration(0); t <= c.span; t += step {
		tx := c.x(c.res.Start.Add(t))
		fmt.Fprintf(c.w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", tx, topMargin-8, tx, topMargin+c.body)
		fmt.Fprintf(c.w, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", tx, topMargin-12, offset(t))
	}
}

// groupStarts draws a dashed line where each group that started did.
func (c chart) groupStarts() {
	for _, g := range c.res.Groups {
		if g.Started.IsZero() {
			continue
		}
		gx := c.x(g.Started)
		fmt.Fprintf(c.w, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="4,3"/>`+"\n", gx, topMargin-30, gx, topMargin+c.body)
		fmt.Fprintf(c.w, `<text x="%.1f" y="%d" fill="#333">%s starts</text>`+"\n", gx+3, topMargin-32, html.EscapeString(groupName(g.GroupKey)))
	}
}

// legend draws, at y, the colour of each segment kind and the timeout
// mark, and with byGroup what a bar's height means.
func (c chart) legend(y int, byGroup bool) {
	lx := leftMargin
	for k := progressingSeg; k <= succeededSeg; k++ {
		fmt.Fprintf(c.w, `<rect x="%d" y="%d" width="14" height="12" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n", lx, y, k.colour(), lx+18, y+11, k)
		lx += 190
	}
	fmt.Fprintf(c.w, `<path d="M%d %d l8 12 m0 -12 l-8 12" stroke="black" stroke-width="2"/><text x="%d" y="%d">timed out</text>`+"\n", lx, y, lx+14, y+11)
	if byGroup {
		fmt.Fprintf(c.w, `<text x="%d" y="%d" fill="#555">a row per group; a bar's height is the share of the group's clusters in that state</text>`+"\n", leftMargin, y+30)
	}
}

// clusterRows draws the heading of group g at y and a row per cluster
// under it, and returns the y after them.
func (c chart) clusterRows(y int, g grouping.Group, bars map[string][]segment, timeouts map[string][]time.Time) int {
	w := c.w
	fmt.Fprintf(w, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#999"/>`+"\n", y, svgWidth, y)
	fmt.Fprintf(w, `<text x="6" y="%d" font-weight="bold" fill="#333">%s</text>`+"\n", y+13, html.EscapeString(fmt.Sprintf("%d %s", g.Index, groupName(g.GroupKey))))
	y += 4
	for _, cl := range g.Clusters {
		fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", leftMargin-6, y+barHeight, html.EscapeString(cl))
		for _, s := range bars[cl] {
			x0, x1 := c.x(s.from), c.x(s.till)
			if x1-x0 < 1 {
				x1 = x0 + 1
			}
			fmt.Fprintf(w, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s %s-%s</title></rect>`+"\n",
				x0, y+3, x1-x0, barHeight, s.kind.colour(), html.EscapeString(cl), s.kind, offset(s.from.Sub(c.res.Start)), offset(s.till.Sub(c.res.Start)))
		}
		for _, t := range timeouts[cl] {
			fmt.Fprintf(w, `<path d="M%.1f %d l8 12 m0 -12 l-8 12" transform="translate(-4 0)" stroke="black" stroke-width="2"><title>%s timed out at %s</title></path>`+"\n",
				c.x(t), y+3, html.EscapeString(cl), offset(t.Sub(c.res.Start)))
		}
		y += rowHeight
	}
	return y
}

// groupRow draws group g as one row at y: between two changes, a stack of
// bars whose heights are the shares of its clusters in each state. It
// returns the y after the row.
func (c chart) groupRow(y int, g grouping.Group, bars map[string][]segment, timeouts map[string][]time.Time) int {
	w := c.w
	fmt.Fprintf(w, `<line x1="0" y1="%d" x2="%d" y2="%d" stroke="#999"/>`+"\n", y, svgWidth, y)
	fmt.Fprintf(w, `<text x="%d" y="%d" text-anchor="end" font-weight="bold" fill="#333">%s</text>`+"\n", leftMargin-6, y+groupBarHeight,
		html.EscapeString(fmt.Sprintf("%d %s (%d)", g.Index, groupName(g.GroupKey), len(g.Clusters))))
	if len(g.Clusters) == 0 {
		return y + groupRowHeight
	}
	label := html.EscapeString(groupName(g.GroupKey))
	for _, st := range shares(g.Clusters, bars) {
		x0, x1 := c.x(st.from), c.x(st.till)
		if x1-x0 < 1 {
			x1 = x0 + 1
		}
		bottom := float64(y + 3 + groupBarHeight)
		// Failed at the bottom, where a thin strip is easy to find.
		for _, k := range []segmentKind{failedSeg, progressingSeg, soakingSeg, succeededSeg} {
			n := st.counts[k]
			if n == 0 {
				continue
			}
			// At least 2 pixels, so that one failed cluster in
			// thousands still shows.
			h := max(2, float64(groupBarHeight)*float64(n)/float64(len(g.Clusters)))
			h = min(h, bottom-float64(y+1))
			bottom -= h
			fmt.Fprintf(w, `<rect x="%.1f" y="%.2f" width="%.1f" height="%.2f" fill="%s"><title>%s: %d %s %s-%s</title></rect>`+"\n",
				x0, bottom, x1-x0, h, k.colour(), label, n, k, offset(st.from.Sub(c.res.Start)), offset(st.till.Sub(c.res.Start)))
		}
	}
	timedOut := map[time.Time]int{}
	var times []time.Time
	for _, cl := range g.Clusters {
		for _, t := range timeouts[cl] {
			if timedOut[t] == 0 {
				times = append(times, t)
			}
			timedOut[t]++
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
	for _, t := range times {
		fmt.Fprintf(w, `<path d="M%.1f %d l8 12 m0 -12 l-8 12" transform="translate(-4 0)" stroke="black" stroke-width="2"><title>%s: %d timed out at %s</title></path>`+"\n",
			c.x(t), y+3, label, timedOut[t], offset(t.Sub(c.res.Start)))
	}
	return y + groupRowHeight
}

// share is how many of a group's clusters were in each state from one
// change to the next.
type share struct {
	from, till time.Time
	counts     [succeededSeg + 1]int
}

// shares sweeps the segments of clusters in time order and returns the
// counts between every two changes at which some cluster is in a state.
func shares(clusters []string, bars map[string][]segment) []share {
	type change struct {
		at    time.Time
		kind  segmentKind
		delta int
	}
	var changes []change
	for _, cl := range clusters {
		for _, s := range bars[cl] {
			changes = append(changes, change{s.from, s.kind, 1}, change{s.till, s.kind, -1})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at.Before(changes[j].at) })
	var out []share
	var counts [succeededSeg + 1]int
	for i := 0; i < len(changes); {
		at := changes[i].at
		for ; i < len(changes) && changes[i].at.Equal(at); i++ {
			counts[changes[i].kind] += changes[i].delta
		}
		if i == len(changes) {
			break
		}
		if counts != ([succeededSeg + 1]int{}) {
			out = append(out, share{from: at, till: changes[i].at, counts: counts})
		}
	}
	return out
}

func groupName(k grouping.GroupKey) string {
	if k.Name == "" {
		return fmt.Sprintf("(unnamed #%d)", k.Index)
	}
	return k.Name
}

// tickStep picks an axis step that gives at most about a dozen ticks.
func tickStep(span time.Duration) time.Duration {
	for _, s := range []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute,
		30 * time.Minute, time.Hour, 2 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour} {
		if span/s <= 12 {
			return s
		}
	}
	return 7 * 24 * time.Hour
}
