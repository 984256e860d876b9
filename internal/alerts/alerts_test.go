package alerts

import (
	"bytes"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The files under test, from this module's directory.
const (
	ruleFile  = "../../examples/controller/config/components/prometheus/prometheusrule.yaml"
	testsFile = "testdata/alerts_test.yaml"
	docsFile  = "../../docs/alerts.md"
	// runbookBase is where every alert's runbook_url points, followed by
	// its anchor in docsFile.
	runbookBase = "https://github.com/rolloutkit/rolloutkit/blob/main/docs/alerts.md#"
)

// envRequire, when set (CI sets it), fails the promtool test that finds no
// promtool instead of skipping it: the variable that requires the test
// API server and the test Prometheus too.
const envRequire = "ROLLOUTKIT_REQUIRE_APISERVER"

// wantAlerts are the alerts the PrometheusRule must hold: issue 33's five
// (the gate's two signals, from kube-state-metrics and from the
// kube-apiserver, count as one), and the controller up with no leader,
// which a stale status cannot show.
var wantAlerts = []string{
	"RolloutkitControllerDown",
	"RolloutkitNoLeader",
	"RolloutkitWorkGateNoReadyEndpoint",
	"RolloutkitWorkGateCallsFailing",
	"RolloutkitRolloutPastDeadline",
	"RolloutkitVerificationFailing",
	"RolloutkitStatusStale",
}

// TestAlertRules checks the shipped PrometheusRule: it is the object the
// component and the chart name, its rule groups load as Prometheus loads a
// rule file, every expression parses with Prometheus's parser, every alert
// has a severity, a summary, a description and a runbook that docs/alerts.md
// holds, and promtool's unit tests (testdata/alerts_test.yaml) pass.
func TestAlertRules(t *testing.T) {
	t.Parallel()
	rules := ruleGroups(t)
	groups, errs := rulefmt.Parse(rules, false, model.UTF8Validation, parser.NewParser(parser.Options{}), slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.Empty(t, errs, "rulefmt refuses the PrometheusRule's spec")
	docs, err := os.ReadFile(docsFile)
	require.NoError(t, err)
	var got []string
	for _, g := range groups.Groups {
		for _, r := range g.Rules {
			got = append(got, r.Alert)
			t.Run(r.Alert, func(t *testing.T) {
				t.Parallel()
				checkRule(t, r, string(docs))
			})
		}
	}
	assert.ElementsMatch(t, wantAlerts, got, "the PrometheusRule's alerts")
	t.Run("promtool test rules", func(t *testing.T) {
		t.Parallel()
		promtoolTest(t, rules)
	})
}

// ruleGroups returns the spec of the shipped PrometheusRule, a rule file's
// content, after checking the object's kind and names.
func ruleGroups(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(ruleFile)
	require.NoError(t, err)
	var obj struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   struct {
			Name      string `yaml:"name"`
			Namespace string `yaml:"namespace"`
		} `yaml:"metadata"`
		Spec yaml.Node `yaml:"spec"`
	}
	require.NoError(t, yaml.Unmarshal(b, &obj))
	assert.Equal(t, "monitoring.coreos.com/v1", obj.APIVersion)
	assert.Equal(t, "PrometheusRule", obj.Kind)
	assert.Equal(t, "rolloutkit-controller", obj.Metadata.Name, "the name the chart renders too")
	assert.Equal(t, "rolloutkit-system", obj.Metadata.Namespace)
	spec, err := yaml.Marshal(&obj.Spec)
	require.NoError(t, err)
	return spec
}

// labelRef finds the labels an annotation's template names.
var labelRef = regexp.MustCompile(`\$labels\.([a-z_]+)`)

// checkRule checks one alerting rule: its expression parses, it has a
// severity, a summary and a description that name the labels its
// expression keeps, and a runbook whose anchor docs holds.
func checkRule(t *testing.T, r rulefmt.Rule, docs string) {
	expr, err := parser.NewParser(parser.Options{}).ParseExpr(r.Expr)
	require.NoError(t, err, "expr %q", r.Expr)
	assert.Contains(t, []string{"critical", "warning"}, r.Labels["severity"], "labels.severity")
	for _, k := range []string{"summary", "description", "runbook_url"} {
		assert.NotEmpty(t, r.Annotations[k], "annotations.%s", k)
	}
	anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], runbookBase)
	assert.True(t, ok, "runbook_url %q: want %s<anchor>", r.Annotations["runbook_url"], runbookBase)
	assert.Equal(t, strings.ToLower(r.Alert), anchor, "runbook_url's anchor")
	assert.Contains(t, docs, "\n## "+r.Alert+"\n", "%s: no section of its own", docsFile)
	// Every label the annotations name must survive the expression's
	// aggregations, or the text would say nothing. (An expression with
	// none keeps its series' labels.)
	var kept []string
	aggregated := false
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		if a, ok := n.(*parser.AggregateExpr); ok {
			aggregated = true
			kept = append(kept, a.Grouping...)
		}
		return nil
	})
	if !aggregated {
		return
	}
	for _, k := range []string{"summary", "description"} {
		for _, m := range labelRef.FindAllStringSubmatch(r.Annotations[k], -1) {
			assert.Contains(t, kept, m[1], "annotations.%s names $labels.%s, which the expression drops", k, m[1])
		}
	}
}

// promtoolTest runs promtool test rules on testdata/alerts_test.yaml with
// the rule file rules, as rules.yaml beside it.
func promtoolTest(t *testing.T, rules []byte) {
	bin := promtool(t)
	dir := t.TempDir()
	tests, err := os.ReadFile(testsFile)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rules.yaml"), rules, 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alerts_test.yaml"), tests, 0o600))
	var out bytes.Buffer
	cmd := exec.Command(bin, "test", "rules", "alerts_test.yaml")
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, &out, &out
	require.NoError(t, cmd.Run(), "promtool test rules %s:\n%s", testsFile, out.String())
	t.Logf("promtool test rules %s:\n%s", testsFile, out.String())
}

// promtool returns the path of the promtool hack/test-prometheus.sh
// builds: in $ROLLOUTKIT_PROMETHEUS, else in its cache
// (${ROLLOUTKIT_CACHE:-$HOME/.cache/rolloutkit}/prometheus-${PROMETHEUS_VERSION:-v0.316.0}/bin). Without it the
// test is skipped, or fails when envRequire is set.
func promtool(t *testing.T) string {
	dir := os.Getenv("ROLLOUTKIT_PROMETHEUS")
	if dir == "" {
		home, err := os.UserHomeDir()
		require.NoError(t, err)
		cache := os.Getenv("ROLLOUTKIT_CACHE")
		if cache == "" {
			cache = filepath.Join(home, ".cache", "rolloutkit")
		}
		version := os.Getenv("PROMETHEUS_VERSION")
		if version == "" {
			version = "v0.316.0" // hack/test-prometheus.sh's default, and this module's
		}
		dir = filepath.Join(cache, "prometheus-"+version, "bin")
	}
	bin := filepath.Join(dir, "promtool")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv(envRequire) != "" {
			t.Fatalf("%s is set and there is no promtool at %s: run hack/test-prometheus.sh", envRequire, bin)
		}
		t.Skipf("SKIP (no promtool at %s: run hack/test-prometheus.sh)", bin)
	}
	return bin
}
