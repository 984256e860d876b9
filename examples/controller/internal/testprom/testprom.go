package testprom

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	promv1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// EnvPrometheus names a directory holding the prometheus binary; when set,
// Binary looks there instead of in the cache hack/test-prometheus.sh builds
// into.
const EnvPrometheus = "ROLLOUTKIT_PROMETHEUS"

// EnvRequire, when set (CI sets it), makes ForTest fail a test that finds
// no prometheus binary instead of skipping it. It is the variable that
// requires the test API server too.
const EnvRequire = "ROLLOUTKIT_REQUIRE_APISERVER"

// DefaultVersion is the github.com/prometheus/prometheus module version
// hack/test-prometheus.sh builds unless PROMETHEUS_VERSION says otherwise;
// keep the two in step.
const DefaultVersion = "v0.316.0"

// JobName is the job label of the one scrape job Start configures.
const JobName = "rolloutkit-test"

// DefaultScrapeInterval is the scrape interval Start uses when given none.
const DefaultScrapeInterval = time.Second

// defaultWait bounds Start's and WaitForTarget's polling when their
// context has no deadline of its own.
const defaultWait = time.Minute

// pollEvery is how often Start and WaitForTarget ask Prometheus again.
const pollEvery = 50 * time.Millisecond

// Binary returns the path of the prometheus binary: the one in
// $ROLLOUTKIT_PROMETHEUS when that is set, else the one in the cache
// hack/test-prometheus.sh builds into
// (${ROLLOUTKIT_CACHE:-$HOME/.cache/rolloutkit}/prometheus-${PROMETHEUS_VERSION:-v0.316.0}/bin).
// It is an error when the binary is not there; the message says where it
// looked and how to build it.
func Binary() (string, error) {
	dir := os.Getenv(EnvPrometheus)
	if dir == "" {
		cache := os.Getenv("ROLLOUTKIT_CACHE")
		if cache == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return "", fmt.Errorf("no %s and no home directory to find the cache in: %w", EnvPrometheus, err)
			}
			cache = filepath.Join(home, ".cache", "rolloutkit")
		}
		version := os.Getenv("PROMETHEUS_VERSION")
		if version == "" {
			version = DefaultVersion
		}
		dir = filepath.Join(cache, "prometheus-"+version, "bin")
	}
	bin := filepath.Join(dir, "prometheus")
	fi, err := os.Stat(bin)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("no prometheus binary at %s: build it with hack/test-prometheus.sh (or set %s to the directory holding it)", bin, EnvPrometheus)
	}
	return bin, nil
}

// Server is a running Prometheus. Stop it when done.
type Server struct {
	// URL is the server's base URL, http://127.0.0.1:PORT (https with
	// Web.TLS), without a trailing slash.
	URL string
	// LogFile is the file that holds the server's output.
	LogFile string
	// Targets are the host:port addresses the server scrapes.
	Targets []string

	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd.Wait returns
	waitErr  error         // cmd.Wait's result, set before exited closes
	dataDir  string
	client   api.Client // of the server, for /-/ready
	api      promv1.API // of the server
	stopOnce sync.Once
	stopErr  error
}

// Start starts prometheus (the binary bin, as Binary returns it) with one
// scrape job, named JobName, over targets (host:port addresses of
// plain-HTTP /metrics endpoints) every scrapeInterval (DefaultScrapeInterval
// when zero), listening on a free port of 127.0.0.1, and returns once
// /-/ready answers 200. Its configuration and storage live in a temporary
// directory that Stop removes; its output goes to a file in logDir (that
// temporary directory when logDir is empty). ctx bounds the start only (a
// minute when it has no deadline): the server runs until Stop.
func Start(ctx context.Context, bin string, targets []string, scrapeInterval time.Duration, logDir string) (*Server, error) {
	return StartWeb(ctx, bin, targets, scrapeInterval, logDir, Web{})
}

// Web is how a server serves its HTTP API: Prometheus's own
// --web.config.file (TLS, basic authentication), and a client that gets
// through it. Its zero value: plain HTTP, open to anyone.
type Web struct {
	// Config is the web configuration file's YAML; empty: none.
	Config []byte
	// TLS is whether Config serves HTTPS (a tls_server_config).
	TLS bool
	// Client is the client the Server's own calls use (readiness,
	// targets, Query): one that trusts the server's certificate and
	// passes its authentication. Nil: a plain client.
	Client *http.Client
}

// StartWeb is Start, the server's HTTP API served as web says.
func StartWeb(ctx context.Context, bin string, targets []string, scrapeInterval time.Duration, logDir string, web Web) (*Server, error) {
	if len(targets) == 0 {
		return nil, errors.New("testprom: no scrape targets")
	}
	for _, t := range targets {
		if _, _, err := net.SplitHostPort(t); err != nil || strings.ContainsAny(t, "/\"'\n") {
			return nil, fmt.Errorf("testprom: target %q is not host:port", t)
		}
	}
	if scrapeInterval == 0 {
		scrapeInterval = DefaultScrapeInterval
	}
	if scrapeInterval < time.Millisecond {
		return nil, fmt.Errorf("testprom: scrape interval %v is under a millisecond", scrapeInterval)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWait)
		defer cancel()
	}

	dir, err := os.MkdirTemp("", "testprom-")
	if err != nil {
		return nil, err
	}
	config := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(config, configYAML(targets, scrapeInterval), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if logDir == "" {
		logDir = dir
	}
	webFile := ""
	if len(web.Config) > 0 {
		webFile = filepath.Join(dir, "web.yml")
		if err := os.WriteFile(webFile, web.Config, 0o600); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}

	// A free port is found by listening on port 0 and closing the listener,
	// so something else may take it before prometheus does: try again with
	// another port when that happens.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, portTaken, err := start(ctx, bin, dir, config, logDir, targets, web, webFile)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if !portTaken || ctx.Err() != nil {
			break
		}
	}
	_ = os.RemoveAll(dir)
	return nil, lastErr
}

// start runs prometheus on a free port and waits until it is ready. It
// reports whether it failed because something else took the port first.
func start(ctx context.Context, bin, dir, config, logDir string, targets []string, web Web, webFile string) (*Server, bool, error) {
	port, err := freePort()
	if err != nil {
		return nil, false, err
	}
	s, err := launch(bin, dir, config, logDir, port, web, webFile)
	if err != nil {
		return nil, false, err
	}
	s.Targets = append([]string(nil), targets...)
	portTaken, err := s.waitReady(ctx)
	if err != nil {
		return nil, portTaken, err
	}
	return s, false, nil
}

// launch starts prometheus on port, with its storage in dir, its output
// in a file of logDir and its web configuration in webFile (""; none),
// and returns it running, not yet ready.
func launch(bin, dir, config, logDir string, port int, web Web, webFile string) (*Server, error) {
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	logFile := filepath.Join(logDir, "prometheus-"+strconv.Itoa(port)+".log")
	log, err := os.Create(logFile)
	if err != nil {
		return nil, err
	}
	args := []string{
		"--config.file=" + config,
		"--storage.tsdb.path=" + filepath.Join(dir, "data-"+strconv.Itoa(port)),
		"--web.listen-address=" + addr,
		// The scrape manager takes in new targets every 5s by default, so
		// a fresh server would first scrape ~5s after it is ready. The flag
		// is hidden (an older or newer release without it fails to start,
		// and its log says why).
		"--scrape.discovery-reload-interval=100ms",
	}
	if webFile != "" {
		args = append(args, "--web.config.file="+webFile)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout = log
	cmd.Stderr = log
	scheme, hc := "http://", web.Client
	if web.TLS {
		scheme = "https://"
	}
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	s := &Server{URL: scheme + addr, LogFile: logFile, cmd: cmd, exited: make(chan struct{}), dataDir: dir}
	if s.client, err = api.NewClient(api.Config{Address: s.URL, Client: hc}); err != nil {
		_ = log.Close()
		return nil, err
	}
	s.api = promv1.NewAPI(s.client)
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return nil, fmt.Errorf("testprom: starting %s: %w", bin, err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		_ = log.Close()
		close(s.exited)
	}()
	return s, nil
}

// waitReady polls /-/ready until it answers 200. When prometheus exits
// first, it reports whether that was because something else took the
// port; when ctx ends first, it kills prometheus.
func (s *Server) waitReady(ctx context.Context) (portTaken bool, err error) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.client.URL("/-/ready", nil).String(), nil)
		if err != nil {
			s.kill()
			return false, err
		}
		if resp, _, err := s.client.Do(ctx, req); err == nil && resp.StatusCode == http.StatusOK {
			return false, nil
		}
		select {
		case <-s.exited:
			out, _ := os.ReadFile(s.LogFile)
			return strings.Contains(string(out), "address already in use"),
				fmt.Errorf("testprom: prometheus exited before it was ready (%v); its log %s ends:\n%s", s.waitErr, s.LogFile, tail(out, 2000))
		case <-ctx.Done():
			s.kill()
			out, _ := os.ReadFile(s.LogFile)
			return false, fmt.Errorf("testprom: prometheus at %s not ready: %w; its log %s ends:\n%s", s.URL, ctx.Err(), s.LogFile, tail(out, 2000))
		case <-tick.C:
		}
	}
}

// Stop kills the server, waits for it to exit and removes its
// configuration and storage (not its log). It may be called more than
// once.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.kill()
		s.stopErr = os.RemoveAll(s.dataDir)
	})
	return s.stopErr
}

// kill kills the process and waits for it to exit.
func (s *Server) kill() {
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// WaitForTarget polls /api/v1/targets until every one of the server's
// targets is active and up, that is, scraped successfully at least once,
// so that a query does not race the first scrape. It gives up when ctx
// ends (after a minute when ctx has no deadline), saying how each target
// was last seen.
func (s *Server) WaitForTarget(ctx context.Context) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultWait)
		defer cancel()
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	last := "no answer yet"
	for {
		state, done, err := s.targetsUp(ctx)
		switch {
		case err != nil:
			last = err.Error()
		case done:
			return nil
		default:
			last = state
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("testprom: targets %v not all up: %w; last seen: %s", s.Targets, ctx.Err(), last)
		case <-s.exited:
			return fmt.Errorf("testprom: prometheus exited (%v); see %s", s.waitErr, s.LogFile)
		case <-tick.C:
		}
	}
}

// targetsUp reports whether every target is active and up, and describes
// the active targets' health.
func (s *Server) targetsUp(ctx context.Context) (string, bool, error) {
	targets, err := s.api.Targets(ctx)
	if err != nil {
		return "", false, err
	}
	health := make(map[string]string, len(targets.Active))
	var seen []string
	for _, t := range targets.Active {
		if t.Labels[model.JobLabel] != JobName {
			continue
		}
		h := string(t.Health)
		if t.LastError != "" {
			h += " (" + t.LastError + ")"
		}
		instance := string(t.Labels[model.InstanceLabel])
		health[instance] = h
		seen = append(seen, instance+": "+h)
	}
	up := true
	for _, want := range s.Targets {
		if !strings.HasPrefix(health[want], string(promv1.HealthGood)) {
			up = false
		}
	}
	if len(seen) == 0 {
		return "no active targets", false, nil
	}
	return strings.Join(seen, "; "), up, nil
}

// Query evaluates the PromQL expression expr now and returns the instant
// vector it gives. A result that is not a vector is an error.
func (s *Server) Query(ctx context.Context, expr string) (model.Vector, error) {
	v, _, _, err := s.api.Query(ctx, expr, time.Time{}) // without its warnings and infos
	if err != nil {
		return nil, fmt.Errorf("query %q: %w", expr, err)
	}
	vector, ok := v.(model.Vector)
	if !ok {
		return nil, fmt.Errorf("query %q: a %T result, not a vector", expr, v)
	}
	return vector, nil
}

// ForTest starts a server of the test's own over targets (see Start),
// with its log in a temporary directory of the test, waits for its
// targets to be up and stops it when the test ends; when the test failed
// the log's end is written to the test's output. Without the binary the
// test is skipped and says so (failed when EnvRequire is set); in -short
// mode it is skipped.
func ForTest(t testing.TB, targets []string, scrapeInterval time.Duration) *Server {
	t.Helper()
	return ForTestWeb(t, targets, scrapeInterval, Web{})
}

// ForTestWeb is ForTest, the server's HTTP API served as web says.
func ForTestWeb(t testing.TB, targets []string, scrapeInterval time.Duration, web Web) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real Prometheus: not in -short mode")
	}
	bin, err := Binary()
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("%s is set and there is no test Prometheus (run hack/test-prometheus.sh): %v", EnvRequire, err)
		}
		t.Skipf("SKIP (no test Prometheus): %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultWait)
	defer cancel()
	s, err := StartWeb(ctx, bin, targets, scrapeInterval, t.TempDir(), web)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("stopping prometheus: %v", err)
		}
		if t.Failed() {
			out, _ := os.ReadFile(s.LogFile)
			t.Logf("prometheus log %s ends:\n%s", s.LogFile, tail(out, 4000))
		}
	})
	if err := s.WaitForTarget(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// configYAML is a prometheus.yml with one scrape job over targets.
func configYAML(targets []string, interval time.Duration) []byte {
	d := strconv.FormatInt(interval.Milliseconds(), 10) + "ms"
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  scrape_interval: %s\n  scrape_timeout: %s\n  evaluation_interval: %s\n", d, d, d)
	fmt.Fprintf(&b, "scrape_configs:\n  - job_name: %q\n    scheme: http\n    metrics_path: /metrics\n    static_configs:\n      - targets:\n", JobName)
	for _, t := range targets {
		fmt.Fprintf(&b, "          - %q\n", t)
	}
	return []byte(b.String())
}

// freePort returns a port of 127.0.0.1 that nothing listened on a moment
// ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns at most the last n bytes of b.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}
