package testprom

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStartScrapesTarget serves a gauge, has a real Prometheus scrape it,
// reads it back through the query API, then changes it and waits for the
// query to follow.
func TestStartScrapesTarget(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	gauge := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "rolloutkit_testprom_value",
		Help: "A value the test sets.",
	})
	reg.MustRegister(gauge)
	gauge.Set(42)
	metrics := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	t.Cleanup(metrics.Close)
	target := strings.TrimPrefix(metrics.URL, "http://")

	s := ForTest(t, []string{target}, 200*time.Millisecond)
	require.True(t, strings.HasPrefix(s.URL, "http://127.0.0.1:"), s.URL)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	query := `rolloutkit_testprom_value{job="` + JobName + `"}`
	got, err := s.Query(ctx, query)
	require.NoError(t, err)
	require.Len(t, got, 1, "%s gave %v", query, got)
	require.Equal(t, model.SampleValue(42), got[0].Value)
	require.Equal(t, model.LabelValue(target), got[0].Metric[model.InstanceLabel])
	require.Equal(t, model.LabelValue(JobName), got[0].Metric[model.JobLabel])

	gauge.Set(7)
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		got, err := s.Query(ctx, query)
		require.NoError(c, err)
		require.Len(c, got, 1)
		require.Equal(c, model.SampleValue(7), got[0].Value)
	}, 30*time.Second, 100*time.Millisecond)

	up, err := s.Query(ctx, `up{job="`+JobName+`"}`)
	require.NoError(t, err)
	require.Len(t, up, 1)
	require.Equal(t, model.SampleValue(1), up[0].Value)
}

// TestBinaryNamesWhereItLooked points ROLLOUTKIT_PROMETHEUS at an empty
// directory: Binary says it is not there, and where it looked.
func TestBinaryNamesWhereItLooked(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvPrometheus, dir)
	_, err := Binary()
	require.Error(t, err)
	require.Contains(t, err.Error(), filepath.Join(dir, "prometheus"))
	require.Contains(t, err.Error(), "hack/test-prometheus.sh")

	bin := filepath.Join(dir, "prometheus")
	require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755))
	got, err := Binary()
	require.NoError(t, err)
	require.Equal(t, bin, got)
}

// TestConfigYAML checks the scrape job Start writes.
func TestConfigYAML(t *testing.T) {
	t.Parallel()
	got := string(configYAML([]string{"127.0.0.1:1234", "localhost:5678"}, 1500*time.Millisecond))
	require.Equal(t, `global:
  scrape_interval: 1500ms
  scrape_timeout: 1500ms
  evaluation_interval: 1500ms
scrape_configs:
  - job_name: "rolloutkit-test"
    scheme: http
    metrics_path: /metrics
    static_configs:
      - targets:
          - "127.0.0.1:1234"
          - "localhost:5678"
`, got)
}

// TestStartRefusesBadTargets checks Start's arguments before it runs
// anything.
func TestStartRefusesBadTargets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, err := Start(ctx, "/nonexistent/prometheus", nil, time.Second, "")
	require.ErrorContains(t, err, "no scrape targets")
	_, err = Start(ctx, "/nonexistent/prometheus", []string{"http://127.0.0.1:1/metrics"}, time.Second, "")
	require.ErrorContains(t, err, "not host:port")
	_, err = Start(ctx, "/nonexistent/prometheus", []string{"127.0.0.1:1"}, time.Second, "")
	require.ErrorContains(t, err, "starting /nonexistent/prometheus")
}
