package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestCompletionScripts: the completion subcommand writes each shell's
// script for the command as invoked.
func TestCompletionScripts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		shell string
		want  string
	}{
		{"bash", "__start_rolloutctl"},
		{"zsh", "#compdef rolloutctl"},
		{"fish", "complete -c rolloutctl"},
		{"powershell", "Register-ArgumentCompleter"},
	}
	for _, tt := range tests {
		t.Run(tt.shell, func(t *testing.T) {
			t.Parallel()
			code, out, errOut := runWith(t, nil, "completion", tt.shell)
			require.Equal(t, 0, code, errOut)
			assert.Contains(t, out, tt.want)
		})
	}
}

// TestComplete: cobra's __complete, which the scripts call at each Tab,
// completes subcommands, add-on names from the hub, the groups that wait
// for an approval, the add-on's placements, and flag values; a hub that
// cannot be read completes nothing, with the error directive.
func TestComplete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		objs  []client.Object // beside the seed's hub
		noHub bool
		args  []string
		want  []string // the words, then the directive
	}{
		{name: "subcommands", args: []string{""}, want: []string{"approve", "completion", "help", "history", "pause", "resume", "status", "undo", "version", ":4"}},
		{name: "add-ons", args: []string{"status", ""}, want: []string{addonName, ":4"}},
		{name: "add-ons by prefix", args: []string{"pause", "clu"}, want: []string{addonName, ":4"}},
		{name: "no add-on by this prefix", args: []string{"resume", "x"}, want: []string{":4"}},
		{name: "one add-on only", args: []string{"status", addonName, ""}, want: []string{":4"}},
		{name: "groups waiting for an approval", objs: []client.Object{needProd()}, args: []string{"approve", addonName, ""}, want: []string{"prod", ":4"}},
		{name: "groups waiting, of the placement given", objs: []client.Object{needProd()}, args: []string{"approve", addonName, "--placement", "other/p", ""}, want: []string{":4"}},
		{name: "no group waits", args: []string{"approve", addonName, ""}, want: []string{":4"}},
		{name: "placements", args: []string{"approve", addonName, "prod", "--placement", ""}, want: []string{hubNS + "/" + placeName, ":4"}},
		{name: "outputs", args: []string{"status", addonName, "-o", ""}, want: []string{"text", "json", "yaml", ":4"}},
		{name: "add-on versions", args: []string{"status", addonName, "--addon-version", ""}, want: []string{"v1alpha1", "v1beta1", ":4"}},
		{name: "no hub", noHub: true, args: []string{"status", ""}, want: []string{":5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var c client.Client
			if !tt.noHub {
				c = fakeHub(t, true, append(seedHub(t), tt.objs...)...)
			}
			code, out, errOut := runWith(t, c, append([]string{"__complete"}, tt.args...)...)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, tt.want, words(out), errOut)
		})
	}
}

// words are the words of __complete's output, one a line, without their
// descriptions.
func words(out string) []string {
	var ws []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		w, _, _ := strings.Cut(line, "\t")
		ws = append(ws, w)
	}
	return ws
}
