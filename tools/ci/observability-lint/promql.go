package main

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

// Grafana's interval variables become durations no query writes by hand, so a parsed range can be traced back to
// the variable it came from.
const (
	rateIntervalStandIn = 7777 * time.Second
	intervalStandIn     = 6666 * time.Second
	rangeStandIn        = 5555 * time.Second
)

var (
	bracedVariable  = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}`)
	plainVariable   = regexp.MustCompile(`\$([A-Za-z0-9_]+)`)
	squaredVariable = regexp.MustCompile(`\[\[([A-Za-z0-9_]+)(?::[^\]]*)?\]\]`)
	grafanaGlobals  = map[string]string{
		"__rate_interval":    fmt.Sprintf("%ds", int(rateIntervalStandIn.Seconds())),
		"__interval":         fmt.Sprintf("%ds", int(intervalStandIn.Seconds())),
		"__range":            fmt.Sprintf("%ds", int(rangeStandIn.Seconds())),
		"__interval_ms":      fmt.Sprint(intervalStandIn.Milliseconds()),
		"__range_s":          fmt.Sprint(int(rangeStandIn.Seconds())),
		"__range_ms":         fmt.Sprint(rangeStandIn.Milliseconds()),
		"__rate_interval_ms": fmt.Sprint(rateIntervalStandIn.Milliseconds()),
	}
)

// variablesIn lists the template variables (not Grafana's globals) an expression refers to.
func variablesIn(expr string) []string {
	var names []string
	for _, re := range []*regexp.Regexp{bracedVariable, squaredVariable, plainVariable} {
		for _, m := range re.FindAllStringSubmatch(expr, -1) {
			if _, global := grafanaGlobals[m[1]]; !global {
				names = append(names, m[1])
			}
		}
	}
	return names
}

// expand replaces Grafana's variables so the expression parses: globals by their stand-ins, template variables by
// `var_<name>` (a valid identifier, and a valid regular expression inside a matcher's string).
func expand(expr string) string {
	replace := func(re *regexp.Regexp, s string) string {
		return re.ReplaceAllStringFunc(s, func(m string) string {
			name := re.FindStringSubmatch(m)[1]
			if v, ok := grafanaGlobals[name]; ok {
				return v
			}
			return "var_" + name
		})
	}
	return replace(plainVariable, replace(squaredVariable, replace(bracedVariable, expr)))
}

func parsePromQL(expr string) (parser.Expr, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, fmt.Errorf("empty query")
	}
	return parser.NewParser(parser.Options{}).ParseExpr(expand(expr))
}

// A selector as the metric check sees it: the metric's name (empty when the selector has none) and the labels it
// matches on.
type selectorUse struct {
	Name   string   `json:"name"`
	Labels []string `json:"labels"`
	Where  string   `json:"where"`
}

func selectorsOf(expr parser.Expr, where string) []selectorUse {
	var uses []selectorUse
	parser.Inspect(expr, func(node parser.Node, _ []parser.Node) error {
		vs, ok := node.(*parser.VectorSelector)
		if !ok {
			return nil
		}
		use := selectorUse{Name: vs.Name, Where: where, Labels: []string{}}
		for _, m := range vs.LabelMatchers {
			if m.Name == "__name__" {
				if use.Name == "" && m.Type == labels.MatchEqual {
					use.Name = m.Value
				}
				continue
			}
			use.Labels = append(use.Labels, m.Name)
		}
		uses = append(uses, use)
		return nil
	})
	return uses
}

// labelValuesQuery splits a Prometheus variable query into the expressions it evaluates: `label_values(sel,
// label)` and `query_result(expr)` hold one; `label_names()`, `metrics(re)` and `label_values(label)` none.
var (
	labelValuesWithSelector = regexp.MustCompile(`^\s*label_values\(\s*(.+)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)
	labelValuesBare         = regexp.MustCompile(`^\s*label_values\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$`)
	queryResult             = regexp.MustCompile(`^\s*query_result\(\s*(.+)\s*\)\s*$`)
	labelNamesOrMetrics     = regexp.MustCompile(`^\s*(label_names|metrics)\(.*\)\s*$`)
)

func variableQueryExprs(query string) ([]string, error) {
	if m := labelValuesWithSelector.FindStringSubmatch(query); m != nil {
		return []string{m[1]}, nil
	}
	if m := queryResult.FindStringSubmatch(query); m != nil {
		return []string{m[1]}, nil
	}
	if labelValuesBare.MatchString(query) || labelNamesOrMetrics.MatchString(query) {
		return nil, nil
	}
	return nil, fmt.Errorf("not a Prometheus variable query (label_values, label_names, metrics, query_result): %q", query)
}
