package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
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
		// 2. the hash
		"spec hash after   27341f6bf06bf9d2cf6f41076a6268f1fda70673eb53f5bed546ff24ea9402c1",
		"3 of 3 cluster-proxy add-ons are now ToApply, and the staged rollout starts",
		// 3. dev, then stg after dev's soak, then prod
		"+00:00 applied dev-cluster (dev)",
		"+02:00 succeeded dev-cluster (dev)",
		"+07:00 completed group dev: 1 succeeded",
		"+07:00 applied stg-cluster (stg)",
		"+14:00 applied prod-cluster (prod)",
		"+21:00 completed: all 3 groups complete",
	} {
		assert.Contains(t, out, want)
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
				"+09:00 failed stg-cluster (stg)",
				"+24:00 timed out stg-cluster (stg)",
				`halted: group "stg": 1 failed or timed out, maxFailures allows 0 in this group: "stg-cluster" timed out at 00:24:00`,
			},
			wantNot: []string{"applied prod-cluster"}},
		{name: "recovery resumes after the soak", args: []string{"-fail", "stg-cluster", "-recover-after", "40m"}, code: 0,
			want: []string{"+47:00 recovered stg-cluster (stg)", "+52:00 completed group stg", "+52:00 applied prod-cluster (prod)", "completed: all 3 groups complete"}},
		{name: "bigger fleet", args: []string{"-clusters", "3"}, code: 0,
			want: []string{"puts 9 clusters into 3 decision groups", "stg-cluster-3", "applied prod-cluster-2 (prod)"}},
		{name: "approval holds prod", args: []string{"-approve", "dev,stg"}, code: 1,
			want:    []string{"held group prod: waiting for approval of group \"prod\"", `stuck: group "prod": held: waiting for approval of group "prod"`},
			wantNot: []string{"applied prod-cluster"}},
		{name: "window: prod waits for Monday", args: []string{"-window", "Mon-Fri 09:00-17:00 Europe/Berlin", "-start", "2026-01-09T15:50:00Z"}, code: 0,
			want: []string{"held group prod: outside the time window Mon,Tue,Wed,Thu,Fri 09:00-17:00 Europe/Berlin; it opens Mon 2026-01-12 09:00 CET",
				"+64:10:00 applied prod-cluster (prod)"}},
		{name: "window: nothing starts before it opens", args: []string{"-window", "Mon-Fri 09:00-17:00 Europe/Berlin"}, code: 0,
			want: []string{"+8:00:00 applied dev-cluster (dev)"}, wantNot: []string{"+00:00 applied"}},
		{name: "svg", args: []string{"-fail", "stg-cluster", "-recover-after", "40m", "-svg", "SVG"}, code: 0, svgCheck: true},
		{name: "help", args: []string{"-h"}, code: 0, wantErr: "usage: dev-stg-prod"},
		{name: "unknown cluster", args: []string{"-fail", "nope"}, code: 1, wantErr: `-fail "nope": no such cluster`},
		{name: "unknown group", args: []string{"-approve", "qa"}, code: 1, wantErr: `-approve "qa": no such group; the groups are dev, stg, prod`},
		{name: "recover without fail", args: []string{"-recover-after", "1h"}, code: 2, wantErr: "-recover-after needs -fail"},
		{name: "recover before failing", args: []string{"-fail", "stg-cluster", "-recover-after", "1m"}, code: 2, wantErr: "want longer than -apply 2m0s"},
		{name: "bad window", args: []string{"-window", "Mon-Fri 9-5"}, code: 1, wantErr: `window "Mon-Fri 9-5": want "DAYS HH:MM-HH:MM ZONE"`},
		{name: "bad clusters", args: []string{"-clusters", "0"}, code: 2, wantErr: "-clusters 0: want 1 to 10000"},
		{name: "bad start", args: []string{"-start", "monday"}, code: 2, wantErr: `-start "monday"`},
		{name: "stray argument", args: []string{"now"}, code: 2, wantErr: "unexpected arguments"},
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

// checkSVG parses the chart as XML and checks it has a row and bars for
// every cluster, the timeout mark and the legend.
func checkSVG(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	dec := xml.NewDecoder(bytes.NewReader(data))
	texts, rects := map[string]bool{}, 0
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
			if tk.Name.Local == "rect" {
				rects++
			}
		case xml.CharData:
			if inText {
				texts[strings.TrimSpace(string(tk))] = true
			}
		}
	}
	for _, want := range []string{"dev-cluster", "stg-cluster", "prod-cluster", "progressing", "failed", "succeeded", "soaking (minSuccessTime)", "timed out", "stg starts"} {
		assert.True(t, texts[want], "SVG text %q missing", want)
	}
	assert.Greater(t, rects, 10)
	assert.Contains(t, string(data), "stg-cluster failed +09:00-+47:00")
}
