package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runMain(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestSeedRollout(t *testing.T) {
	t.Parallel()
	code, out, errOut := runMain(t)
	require.Equal(t, 0, code, errOut)
	for _, want := range []string{
		// 1. the seed's group table
		"group index  group  PlacementDecision                   cluster",
		"0            dev    cluster-proxy-placement-decision-1  dev-cluster",
		"1            stg    cluster-proxy-placement-decision-2  stg-cluster",
		"2            prod   cluster-proxy-placement-decision-3  prod-cluster",
		// 2. the hash of a concrete upgrade, and what a spec hash and
		// ToApply are
		"helm upgrade v0.9.0 -> v0.9.1:",
		"spec hash before  94b3ba64b5e7176856cee504c9287a83a418a09bc9adb41a45c32ebae4dfad33",
		"spec hash after   bceb0100b7f1c038bb053fbecccf257a33df042e15447130ff2ee5b0871f75cc",
		"A spec hash is the SHA-256 of a config's spec",
		"3 of 3 cluster-proxy add-ons are now ToApply, and the staged rollout starts",
		"ToApply: the add-on needs the new config and has not started applying it.",
		// 3. what a soak and an offset are; dev, then stg after dev's
		// soak, then prod
		"A soak (minSuccessTime 5m): a cluster that succeeded must stay healthy this long before its group completes",
		"Times are offsets from the start: +7m is 7 minutes in, +1h05m an hour and 5 minutes.",
		" +0m applied dev-cluster (dev)",
		" +2m succeeded dev-cluster (dev)",
		" +7m completed group dev: 1 succeeded, soaked 5m",
		" +7m applied stg-cluster (stg)",
		"+14m completed group stg: 1 succeeded, soaked 5m",
		"+14m applied prod-cluster (prod)",
		"+21m completed: all 3 groups complete",
		"dev#0   +0m      +7m",
	} {
		assert.Contains(t, out, want)
	}
	for _, unwanted := range []string{"vX.Y.Z", "+07:00", "+00:"} {
		assert.NotContains(t, out, unwanted)
	}
	assert.Less(t, strings.Index(out, "applied dev-cluster"), strings.Index(out, "applied stg-cluster"))
	assert.Less(t, strings.Index(out, "applied stg-cluster"), strings.Index(out, "applied prod-cluster"))
}

func TestFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		code     int
		want     []string
		wantNot  []string
		wantErr  string
		svgCheck bool
	}{
		{name: "failing cluster halts", args: []string{"-fail", "stg-cluster"}, code: 1,
			want: []string{
				" +9m failed stg-cluster (stg)",
				"+24m timed out stg-cluster (stg): failed since +9m, past the progressDeadline",
				`halted: group "stg": 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 00:24:00`,
			},
			wantNot: []string{"applied prod-cluster"}},
		{name: "recovery resumes after the soak", args: []string{"-fail", "stg-cluster", "-recover-after", "40m"}, code: 0,
			want: []string{"+47m recovered stg-cluster (stg)", "+52m completed group stg: 1 succeeded, soaked 5m", "+52m applied prod-cluster (prod)", "completed: all 3 groups complete"}},
		{name: "bigger fleet, in full", args: []string{"-clusters", "3"}, code: 0,
			want:    []string{"puts 9 clusters into 3 decision groups", "1            stg    cluster-proxy-placement-decision-2  stg-cluster-3", "applied prod-cluster-2 (prod)"},
			wantNot: []string{"Summary of"}},
		{name: "big fleet: a summary", args: []string{"-clusters", "11", "-fail", "stg-cluster-03,stg-cluster-04,stg-cluster-07,stg-cluster-11"}, code: 1,
			want: []string{
				"puts 33 clusters into 3 decision groups",
				"group index  group  PlacementDecisions                  clusters",
				"1            stg    cluster-proxy-placement-decision-2  11: stg-cluster-01 to stg-cluster-11",
				"Summary of 33 clusters: a line per group and event (-detail full: a line per cluster).",
				" +0m applied 11 clusters in dev (dev-cluster-01, dev-cluster-02, ..., dev-cluster-11)",
				" +7m completed group dev: 11 succeeded, soaked 5m",
				" +9m succeeded 7 clusters in stg (stg-cluster-01, stg-cluster-02, ..., stg-cluster-10)",
				" +9m failed 4 clusters in stg (stg-cluster-03, stg-cluster-04, ..., stg-cluster-11)",
				"+24m timed out 4 clusters in stg (stg-cluster-03, stg-cluster-04, ..., stg-cluster-11): failed since +9m, past the progressDeadline",
			},
			wantNot: []string{"applied dev-cluster-05", "cluster-proxy-placement-decision-1  dev-cluster-01"}},
		{name: "big fleet in full", args: []string{"-clusters", "11", "-detail", "full"}, code: 0,
			want: []string{"0            dev    cluster-proxy-placement-decision-1  dev-cluster-05", "+0m applied dev-cluster-05 (dev)"}},
		{name: "small fleet as a summary", args: []string{"-detail", "summary"}, code: 0,
			want: []string{"0            dev    cluster-proxy-placement-decision-1  dev-cluster", " +0m applied dev-cluster (dev)", "Summary of 3 clusters"}},
		{name: "approval holds prod", args: []string{"-approve", "dev,stg"}, code: 1,
			want:    []string{"held group prod: waiting for approval of group \"prod\"", `stuck: group "prod": held: waiting for approval of group "prod"`},
			wantNot: []string{"applied prod-cluster"}},
		{name: "window: prod waits for Monday", args: []string{"-window", "Mon-Fri 09:00-17:00 Europe/Berlin", "-start", "2026-01-09T15:50:00Z"}, code: 0,
			want: []string{"held group prod: outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-01-12 09:00 CET",
				"+64h10m applied prod-cluster (prod)"}},
		{name: "window: nothing starts before it opens", args: []string{"-window", "Mon-Fri 09:00-17:00 Europe/Berlin"}, code: 0,
			want: []string{"+8h00m applied dev-cluster (dev)"}, wantNot: []string{"+0m applied"}},
		{name: "svg", args: []string{"-fail", "stg-cluster", "-recover-after", "40m", "-svg", "SVG"}, code: 0, svgCheck: true},
		{name: "help", args: []string{"-h"}, code: 0, wantErr: "usage: dev-stg-prod"},
		{name: "help says -clusters is capped, and why", args: []string{"-h"}, code: 0,
			wantErr: "1 to 10000. Capped because the simulation keeps\n    \tevery cluster and event in memory"},
		{name: "help says what the exit codes are", args: []string{"-h"}, code: 0,
			wantErr: "Exit code: 0 when the rollout completes, 1 when it halts or is stuck, 2 on bad flags."},
		{name: "unknown cluster", args: []string{"-fail", "nope"}, code: 2, wantErr: `-fail "nope": no such cluster`},
		{name: "unknown group", args: []string{"-approve", "qa"}, code: 2, wantErr: `-approve "qa": no such group; the groups are dev, stg, prod`},
		{name: "no group", args: []string{"-approve", ","}, code: 2, wantErr: `-approve ",": want comma-separated group names`},
		{name: "bad detail", args: []string{"-detail", "some"}, code: 2, wantErr: `invalid value "some" for flag -detail: want auto, full or summary`},
		{name: "recover without fail", args: []string{"-recover-after", "1h"}, code: 2, wantErr: "-recover-after needs -fail"},
		{name: "recover before failing", args: []string{"-fail", "stg-cluster", "-recover-after", "1m"}, code: 2, wantErr: "want longer than -apply 2m0s"},
		{name: "bad window", args: []string{"-window", "Mon-Fri 9-5"}, code: 2, wantErr: `-window: window: Invalid value: "Mon-Fri 9-5": want "DAYS HH:MM-HH:MM ZONE"`},
		{name: "bad clusters", args: []string{"-clusters", "0"}, code: 2, wantErr: "-clusters 0: want 1 to 10000"},
		{name: "too many clusters", args: []string{"-clusters", "10001"}, code: 2, wantErr: "-clusters 10001: want 1 to 10000"},
		{name: "bad start", args: []string{"-start", "monday"}, code: 2, wantErr: `-start "monday"`},
		{name: "stray argument", args: []string{"now"}, code: 2, wantErr: "unexpected arguments"},
		{name: "every problem at once", args: []string{"-clusters", "0", "-recover-after", "1m", "-start", "monday"}, code: 2,
			wantErr: "-clusters 0: want 1 to 10000\n-recover-after needs -fail: only failing clusters recover\n" +
				`-start "monday": want an RFC 3339 time`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := tt.args
			svgPath := filepath.Join(t.TempDir(), "timeline.svg")
			for i, a := range args {
				if a == "SVG" {
					args = append(append([]string{}, args[:i]...), append([]string{svgPath}, args[i+1:]...)...)
				}
			}
			code, out, errOut := runMain(t, args...)
			assert.Equal(t, tt.code, code, errOut)
			for _, w := range tt.want {
				assert.Contains(t, out, w)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, out, w)
			}
			if tt.wantErr != "" {
				assert.Contains(t, errOut, tt.wantErr)
			}
			if tt.svgCheck {
				checkSVG(t, svgPath)
			}
		})
	}
}

// TestBigFleet runs a fleet too big to show in full: the text has a line
// per group and event, and the SVG a row per group; -detail full shows
// every cluster again.
func TestBigFleet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		maxLines  int
		maxHeight int
		rows      []string
	}{
		{name: "summary", args: []string{"-clusters", "2000", "-fail", "stg-cluster-0500", "-recover-after", "30m"}, maxLines: 60, maxHeight: 300,
			rows: []string{"0 dev (2000)", "1 stg (2000)", "2 prod (2000)"}},
		{name: "full", args: []string{"-clusters", "11", "-detail", "full"}, maxLines: 200, maxHeight: 1000,
			rows: []string{"0 dev", "dev-cluster-01", "prod-cluster-11"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			svgPath := filepath.Join(t.TempDir(), "timeline.svg")
			code, out, errOut := runMain(t, append(tt.args, "-svg", svgPath)...)
			require.Equal(t, 0, code, errOut)
			assert.LessOrEqual(t, strings.Count(out, "\n"), tt.maxLines)
			texts, height := svgTexts(t, svgPath)
			assert.LessOrEqual(t, height, tt.maxHeight)
			for _, r := range tt.rows {
				assert.True(t, texts[r], "SVG row %q missing", r)
			}
		})
	}
}

// svgTexts parses the SVG at path and returns its texts and its height.
func svgTexts(t *testing.T, path string) (map[string]bool, int) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(data))
	texts, height := map[string]bool{}, 0
	var inText bool
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "the SVG must be well-formed XML")
		switch tk := tok.(type) {
		case xml.StartElement:
			inText = tk.Name.Local == "text"
			if tk.Name.Local == "svg" {
				for _, a := range tk.Attr {
					if a.Name.Local == "height" {
						height, err = strconv.Atoi(a.Value)
						require.NoError(t, err)
					}
				}
			}
		case xml.CharData:
			if inText {
				texts[strings.TrimSpace(string(tk))] = true
			}
		}
	}
	return texts, height
}

// checkSVG parses the chart as XML and checks it has a row and bars for
// every cluster, the timeout mark and the legend.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	texts, _ := svgTexts(t, path)
	for _, want := range []string{"dev-cluster", "stg-cluster", "prod-cluster", "progressing", "failed", "succeeded", "soaking (minSuccessTime)", "timed out", "stg starts"} {
		assert.True(t, texts[want], "SVG text %q missing", want)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Greater(t, strings.Count(string(data), "<rect "), 10)
	assert.Contains(t, string(data), "stg-cluster failed +9m-+47m")
}
