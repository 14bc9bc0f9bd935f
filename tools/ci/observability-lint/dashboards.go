package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	sdkdashboard "github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	"go.yaml.in/yaml/v3"
)

// The dashboard JSON, as far as the rules read it.
type dashboard struct {
	UID           string   `json:"uid"`
	Title         string   `json:"title"`
	SchemaVersion int      `json:"schemaVersion"`
	Tags          []string `json:"tags"`
	Templating    struct {
		List []variable `json:"list"`
	} `json:"templating"`
	Panels []panel `json:"panels"`
}

type datasourceRef struct {
	Type string `json:"type"`
	UID  string `json:"uid"`
}

type variable struct {
	Name       string          `json:"name"`
	Label      string          `json:"label"`
	Type       string          `json:"type"`
	Query      json.RawMessage `json:"query"`
	Definition string          `json:"definition"`
	Datasource *datasourceRef  `json:"datasource"`
	Refresh    int             `json:"refresh"`
	Multi      bool            `json:"multi"`
	IncludeAll bool            `json:"includeAll"`
}

type panel struct {
	ID          int            `json:"id"`
	Type        string         `json:"type"`
	Title       string         `json:"title"`
	Description string         `json:"description"`
	Datasource  *datasourceRef `json:"datasource"`
	Targets     []target       `json:"targets"`
	Panels      []panel        `json:"panels"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
		Overrides []struct {
			Properties []struct {
				ID    string `json:"id"`
				Value any    `json:"value"`
			} `json:"properties"`
		} `json:"overrides"`
	} `json:"fieldConfig"`
}

type target struct {
	Expr       string         `json:"expr"`
	RefID      string         `json:"refId"`
	Datasource *datasourceRef `json:"datasource"`
}

// queryText is a variable's query: a string, or Grafana's object form `{"query": "...", ...}`.
func (v variable) queryText() string {
	var s string
	if json.Unmarshal(v.Query, &s) == nil {
		return s
	}
	var o struct {
		Query string `json:"query"`
	}
	if json.Unmarshal(v.Query, &o) == nil {
		return o.Query
	}
	return ""
}

// ---- findings and the .lint file ---------------------------------------------------------------------------

type finding struct {
	Rule      string
	Dashboard string
	Panel     string
	TargetIdx int // -1: not about one target
	Message   string
}

func (f finding) String() string {
	where := fmt.Sprintf("dashboard %q", f.Dashboard)
	if f.Panel != "" {
		where += fmt.Sprintf(", panel %q", f.Panel)
	}
	if f.TargetIdx >= 0 {
		where += fmt.Sprintf(", target %d", f.TargetIdx)
	}
	return fmt.Sprintf("[%s] %s: %s", f.Rule, where, f.Message)
}

type lintEntry struct {
	Dashboard string `yaml:"dashboard"`
	Panel     string `yaml:"panel"`
	TargetIdx *int   `yaml:"targetIdx"`
	used      bool
}

type lintExclusion struct {
	Reason  string       `yaml:"reason"`
	Entries []*lintEntry `yaml:"entries"`
	used    bool
}

type lintConfig struct {
	Exclusions map[string]*lintExclusion `yaml:"exclusions"`
	Warnings   map[string]*lintExclusion `yaml:"warnings"`
}

var ruleNames = []string{
	"template-datasource-rule",
	"template-job-rule",
	"template-instance-rule",
	"template-label-promql-rule",
	"template-on-time-change-reload-rule",
	"template-required-variables-rule",
	"panel-datasource-rule",
	"panel-title-description-rule",
	"panel-units-rule",
	"panel-no-targets-rule",
	"target-promql-rule",
	"target-rate-interval-rule",
	"target-job-rule",
	"target-instance-rule",
	"target-counter-agg-rule",
	"target-histogram-quantile-rule",
}

func loadLintConfig(path string) (*lintConfig, error) {
	cfg := &lintConfig{}
	if path == "" {
		return cfg, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, os.ErrNotExist) && err.Error() != "EOF" {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cfg.Warnings) > 0 {
		return nil, fmt.Errorf("%s: `warnings` are not used here (every finding fails); exclude with a reason instead", path)
	}
	for rule, ex := range cfg.Exclusions {
		if !slices.Contains(ruleNames, rule) {
			return nil, fmt.Errorf("%s: unknown rule %q", path, rule)
		}
		if ex == nil || strings.TrimSpace(ex.Reason) == "" {
			return nil, fmt.Errorf("%s: the exclusion of %s has no reason", path, rule)
		}
	}
	return cfg, nil
}

// excluded reports whether the .lint file covers a finding, and marks what covered it as used.
func (c *lintConfig) excluded(f finding) bool {
	ex := c.Exclusions[f.Rule]
	if ex == nil {
		return false
	}
	if len(ex.Entries) == 0 {
		ex.used = true
		return true
	}
	for _, e := range ex.Entries {
		if (e.Dashboard == "" || e.Dashboard == f.Dashboard) && (e.Panel == "" || e.Panel == f.Panel) &&
			(e.TargetIdx == nil || *e.TargetIdx == f.TargetIdx) {
			e.used = true
			ex.used = true
			return true
		}
	}
	return false
}

func (c *lintConfig) unused() []string {
	var out []string
	for rule, ex := range c.Exclusions {
		if !ex.used {
			out = append(out, fmt.Sprintf("the exclusion of %s matches nothing: remove it", rule))
			continue
		}
		for _, e := range ex.Entries {
			if !e.used {
				out = append(out, fmt.Sprintf("an entry of the %s exclusion (dashboard %q, panel %q) matches nothing: remove it", rule, e.Dashboard, e.Panel))
			}
		}
	}
	sort.Strings(out)
	return out
}

// ---- the command --------------------------------------------------------------------------------------------

func runDashboards(args []string) error {
	fs := flag.NewFlagSet("dashboards", flag.ContinueOnError)
	lintPath := fs.String("lint", "", "the .lint file (dashboard-linter's format: exclusions with a reason)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("no dashboards given")
	}
	cfg, err := loadLintConfig(*lintPath)
	if err != nil {
		return err
	}
	plugins.RegisterDefaultPlugins()

	failed := 0
	uids := map[string]string{}
	titles := map[string]string{}
	for _, path := range fs.Args() {
		problems, findings, d := lintFile(path)
		if d != nil {
			if other, dup := uids[d.UID]; dup && d.UID != "" {
				problems = append(problems, fmt.Sprintf("uid %q is also the uid of %s", d.UID, other))
			}
			if other, dup := titles[d.Title]; dup && d.Title != "" {
				problems = append(problems, fmt.Sprintf("title %q is also the title of %s", d.Title, other))
			}
			uids[d.UID], titles[d.Title] = path, path
		}
		kept := 0
		for _, f := range findings {
			if !cfg.excluded(f) {
				problems = append(problems, f.String())
				kept++
			}
		}
		name := filepath.Base(path)
		if len(problems) == 0 {
			fmt.Printf("ok    %s (%d findings excluded by .lint)\n", name, len(findings)-kept)
			continue
		}
		failed++
		fmt.Printf("error %s\n", name)
		for _, p := range problems {
			fmt.Printf("      %s\n", p)
		}
	}
	if unused := cfg.unused(); len(unused) > 0 {
		failed++
		for _, u := range unused {
			fmt.Printf("error %s: %s\n", filepath.Base(*lintPath), u)
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d dashboards (or the .lint file) failed", failed, fs.NArg())
	}
	return nil
}

// sdkError is nil for the SDK's empty error list: its decoders and validators return their (possibly empty)
// cog.BuildErrors as an error, which is never a nil interface.
func sdkError(err error) error {
	var list cog.BuildErrors
	if errors.As(err, &list) && len(list) == 0 {
		return nil
	}
	return err
}

var uidPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`)

// lintFile returns the schema problems (never excludable) and the rule findings of one dashboard.
func lintFile(path string) ([]string, []finding, *dashboard) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return []string{err.Error()}, nil, nil
	}
	var problems []string
	var typed sdkdashboard.Dashboard
	if err := sdkError(typed.UnmarshalJSONStrict(raw)); err != nil {
		for _, line := range strings.Split(err.Error(), "\n") {
			problems = append(problems, "schema: "+line)
		}
	} else if err := sdkError(typed.Validate()); err != nil {
		problems = append(problems, "schema: "+err.Error())
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		return append(problems, err.Error()), nil, nil
	}
	if !uidPattern.MatchString(d.UID) {
		problems = append(problems, fmt.Sprintf("uid %q: 1 to 40 letters, digits, '-' or '_'", d.UID))
	}
	if strings.TrimSpace(d.Title) == "" {
		problems = append(problems, "no title")
	}
	if d.SchemaVersion < 39 {
		problems = append(problems, fmt.Sprintf("schemaVersion %d: 39 or later", d.SchemaVersion))
	}
	if len(d.Tags) == 0 {
		problems = append(problems, "no tags")
	}
	return problems, lintDashboard(&d), &d
}

// ---- the rules ----------------------------------------------------------------------------------------------

var queryPanelTypes = []string{
	"timeseries", "stat", "gauge", "bargauge", "table", "heatmap", "state-timeline", "status-history",
	"piechart", "barchart", "histogram",
}

var unitPanelTypes = []string{"timeseries", "stat", "gauge", "bargauge", "table"}

// Grafana's unit ids this repository uses or is likely to (packages/grafana-data valueFormats categories).
var validUnits = []string{
	"none", "short", "string", "percent", "percentunit", "locale", "sci",
	"ns", "µs", "ms", "s", "m", "h", "d", "dtdurationms", "dtdurations", "dthms", "clockms", "clocks",
	"bytes", "decbytes", "bits", "decbits", "kbytes", "mbytes", "gbytes", "Bps", "bps", "binBps", "pps",
	"hertz", "cps", "ops", "reqps", "rps", "wps", "iops", "cpm", "opm", "rpm", "wpm",
	"dateTimeAsIso", "dateTimeAsSystem", "dateTimeFromNow", "bool", "bool_yes_no", "bool_on_off",
}

func isDatasourceVariableRef(ref *datasourceRef) bool {
	return ref != nil && (ref.UID == "${datasource}" || ref.UID == "$datasource")
}

func lintDashboard(d *dashboard) []finding {
	var out []finding
	add := func(rule, p string, idx int, format string, a ...any) {
		out = append(out, finding{Rule: rule, Dashboard: d.Title, Panel: p, TargetIdx: idx, Message: fmt.Sprintf(format, a...)})
	}

	// Variables.
	defined := map[string]bool{}
	var datasources []variable
	for _, v := range d.Templating.List {
		defined[v.Name] = true
		if v.Type == "datasource" {
			datasources = append(datasources, v)
		}
	}
	switch {
	case len(datasources) != 1:
		add("template-datasource-rule", "", -1, "%d datasource variables; want exactly one", len(datasources))
	case datasources[0].Name != "datasource":
		add("template-datasource-rule", "", -1, "the datasource variable is named %q; want \"datasource\"", datasources[0].Name)
	case datasources[0].queryText() != "prometheus":
		add("template-datasource-rule", "", -1, "the datasource variable selects %q data sources; want \"prometheus\"", datasources[0].queryText())
	case datasources[0].Label != "Data source":
		add("template-datasource-rule", "", -1, "the datasource variable is labelled %q; want \"Data source\"", datasources[0].Label)
	}
	for _, name := range []string{"job", "instance"} {
		rule := "template-" + name + "-rule"
		i := slices.IndexFunc(d.Templating.List, func(v variable) bool { return v.Name == name })
		if i < 0 {
			add(rule, "", -1, "no %q variable", name)
			continue
		}
		v := d.Templating.List[i]
		switch {
		case v.Type != "query":
			add(rule, "", -1, "the %q variable is of type %q; want \"query\"", name, v.Type)
		case !isDatasourceVariableRef(v.Datasource):
			add(rule, "", -1, "the %q variable does not query ${datasource}", name)
		case v.Label == "":
			add(rule, "", -1, "the %q variable has no label", name)
		case !v.Multi || !v.IncludeAll:
			add(rule, "", -1, "the %q variable must allow several values and All", name)
		}
	}
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		q := v.queryText()
		exprs, err := variableQueryExprs(q)
		if err != nil {
			add("template-label-promql-rule", "", -1, "variable %q: %v", v.Name, err)
		}
		for _, e := range exprs {
			if _, err := parsePromQL(e); err != nil {
				add("template-label-promql-rule", "", -1, "variable %q: invalid PromQL %q: %v", v.Name, e, err)
			}
		}
		if v.Refresh != 2 {
			add("template-on-time-change-reload-rule", "", -1, "variable %q refreshes %d; want 2 (on time range change)", v.Name, v.Refresh)
		}
		for _, ref := range variablesIn(q) {
			if !defined[ref] {
				add("template-required-variables-rule", "", -1, "variable %q uses $%s, which is not defined", v.Name, ref)
			}
		}
	}

	// Panels, rows' nested panels included.
	var panels []panel
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			panels = append(panels, p)
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, p := range panels {
		if p.Type == "row" {
			if strings.TrimSpace(p.Title) == "" {
				add("panel-title-description-rule", "", -1, "a row has no title")
			}
			continue
		}
		if strings.TrimSpace(p.Title) == "" || strings.TrimSpace(p.Description) == "" {
			add("panel-title-description-rule", p.Title, -1, "a panel needs a title and a description")
		}
		if !slices.Contains(queryPanelTypes, p.Type) {
			continue
		}
		if p.Datasource == nil || p.Datasource.Type != "prometheus" || !isDatasourceVariableRef(p.Datasource) {
			add("panel-datasource-rule", p.Title, -1, "the panel's datasource must be {type: prometheus, uid: ${datasource}}")
		}
		if slices.Contains(unitPanelTypes, p.Type) {
			unit := p.FieldConfig.Defaults.Unit
			if !slices.Contains(validUnits, unit) {
				add("panel-units-rule", p.Title, -1, "no or unknown unit %q", unit)
			}
			for _, o := range p.FieldConfig.Overrides {
				for _, prop := range o.Properties {
					if u, ok := prop.Value.(string); prop.ID == "unit" && (!ok || !slices.Contains(validUnits, u)) {
						add("panel-units-rule", p.Title, -1, "an override sets the unknown unit %v", prop.Value)
					}
				}
			}
		}
		if len(p.Targets) == 0 {
			add("panel-no-targets-rule", p.Title, -1, "a %s panel without queries", p.Type)
		}
		for i, t := range p.Targets {
			if t.Datasource != nil && !isDatasourceVariableRef(t.Datasource) {
				add("panel-datasource-rule", p.Title, i, "the query's datasource must be ${datasource}")
			}
			for _, ref := range variablesIn(t.Expr) {
				if !defined[ref] {
					add("template-required-variables-rule", p.Title, i, "the query uses $%s, which is not defined", ref)
				}
			}
			expr, err := parsePromQL(t.Expr)
			if err != nil {
				add("target-promql-rule", p.Title, i, "invalid PromQL %q: %v", t.Expr, err)
				continue
			}
			for _, problem := range targetProblems(expr) {
				add(problem.rule, p.Title, i, "%s in %q", problem.message, t.Expr)
			}
		}
	}
	return out
}

type targetProblem struct{ rule, message string }

func targetProblems(expr parser.Expr) []targetProblem {
	var out []targetProblem
	seen := map[targetProblem]bool{}
	add := func(rule, format string, a ...any) {
		p := targetProblem{rule, fmt.Sprintf(format, a...)}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	parser.Inspect(expr, func(node parser.Node, path []parser.Node) error {
		parent := func(n int) parser.Node {
			if len(path) < n {
				return nil
			}
			return path[len(path)-n]
		}
		switch n := node.(type) {
		case *parser.VectorSelector:
			for _, label := range []string{"job", "instance"} {
				if !slices.ContainsFunc(n.LabelMatchers, func(m *labels.Matcher) bool {
					return m.Name == label && m.Type == labels.MatchRegexp && m.Value == "var_"+label
				}) {
					add("target-"+label+"-rule", "%s has no %s=~\"$%s\" matcher", n.String(), label, label)
				}
			}
			if strings.HasSuffix(n.Name, "_total") {
				ms, _ := parent(1).(*parser.MatrixSelector)
				call, _ := parent(2).(*parser.Call)
				if ms == nil || call == nil || !slices.Contains([]string{"rate", "irate", "increase"}, call.Func.Name) {
					add("target-counter-agg-rule", "counter %s is not inside rate, irate or increase", n.Name)
				}
			}
		case *parser.MatrixSelector:
			if call, ok := parent(1).(*parser.Call); ok && (call.Func.Name == "rate" || call.Func.Name == "irate") &&
				n.Range != rateIntervalStandIn {
				add("target-rate-interval-rule", "%s should range over $__rate_interval", call.Func.Name)
			}
		case *parser.Call:
			if n.Func.Name == "histogram_quantile" && len(n.Args) == 2 {
				agg, ok := unwrapParens(n.Args[1]).(*parser.AggregateExpr)
				if !ok || agg.Without || !slices.Contains(agg.Grouping, "le") {
					add("target-histogram-quantile-rule", "histogram_quantile's buckets must be aggregated by (le, ...)")
				}
			}
		}
		return nil
	})
	return out
}

func unwrapParens(e parser.Expr) parser.Expr {
	for {
		p, ok := e.(*parser.ParenExpr)
		if !ok {
			return e
		}
		e = p.Expr
	}
}
