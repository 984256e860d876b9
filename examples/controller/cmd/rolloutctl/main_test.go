package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUsage: help exits 0, and bad usage exits 2 without reaching the
// hub, saying what is wrong.
func TestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
		real bool // connect with the program's own connect, which loads the kubeconfig
	}{
		{"help", []string{"-h"}, 0, "usage: rolloutctl [-kubeconfig FILE] SUBCOMMAND [flags] ARGS", false},
		{"help lists the subcommands", []string{"-h"}, 0, "  approve  ADDON GROUP   create the RolloutApproval", false},
		{"help of a subcommand", []string{"approve", "-h"}, 0, "usage: rolloutctl approve ADDON GROUP [flags]", false},
		{"help of a subcommand lists its flags", []string{"status", "-h"}, 0, "-o string", false},
		{"no subcommand", nil, 2, "no subcommand: want one of status, pause, resume, approve", false},
		{"unknown subcommand", []string{"rollback", "x"}, 2, `unknown subcommand "rollback": want one of status, pause, resume, approve`, false},
		{"unknown global flag", []string{"-v", "status", "x"}, 2, "flag provided but not defined: -v", false},
		{"unknown flag", []string{"pause", "x", "-force"}, 2, "pause: flag provided but not defined: -force", false},
		{"missing argument", []string{"approve", "cluster-proxy"}, 2, `approve: want ADDON GROUP, got 1 arguments ["cluster-proxy"]`, false},
		{"extra argument", []string{"status", "a", "b"}, 2, `status: want ADDON, got 2 arguments ["a" "b"]`, false},
		{"empty argument", []string{"pause", ""}, 2, "pause: ADDON is empty", false},
		{"bad output", []string{"status", "x", "-o", "yaml"}, 2, `status: -o "yaml": want text or json`, false},
		{"bad version", []string{"status", "x", "-addon-version", "v2"}, 2, `-addon-version "v2": want v1alpha1 or v1beta1`, false},
		{"bad placement", []string{"approve", "x", "prod", "-placement", "cluster-proxy-placement"}, 2, `approve: -placement "cluster-proxy-placement": want NAMESPACE/NAME`, false},
		{"a kubeconfig that is none", []string{"-kubeconfig", "/nonexistent/kubeconfig", "status", "x"}, 2, `-kubeconfig "/nonexistent/kubeconfig"`, true},
		{"a kubeconfig that is none, after the subcommand", []string{"resume", "x", "-kubeconfig", "/nonexistent/kubeconfig"}, 2, `-kubeconfig "/nonexistent/kubeconfig"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := testEnv(nil)
			if tt.real {
				e.connect = connect
			}
			var stderr bytes.Buffer
			e.stderr = &stderr
			code := run(context.Background(), tt.args, e)
			assert.NotContains(t, stderr.String(), "no hub in this test", "bad usage reached the hub")
			assert.Equal(t, tt.code, code, stderr.String())
			assert.Contains(t, stderr.String(), tt.want)
		})
	}
}
