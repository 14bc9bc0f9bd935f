package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

type ruleFile struct {
	Groups []struct {
		Name  string `yaml:"name"`
		Rules []struct {
			Alert  string `yaml:"alert"`
			Record string `yaml:"record"`
			Expr   string `yaml:"expr"`
		} `yaml:"rules"`
	} `yaml:"groups"`
}

type metricsReport struct {
	Uses     []selectorUse `json:"uses"`
	Recorded []string      `json:"recorded"`
	Errors   []string      `json:"errors"`
}

func runMetrics(args []string) error {
	var rules, dashboards multiFlag
	fs := flag.NewFlagSet("metrics", flag.ContinueOnError)
	fs.Var(&rules, "rules", "a Prometheus rule file (repeatable)")
	fs.Var(&dashboards, "dashboards", "a Grafana dashboard (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(rules)+len(dashboards) == 0 || fs.NArg() > 0 {
		return errors.New("give --rules and --dashboards files, nothing else")
	}
	report := metricsReport{Uses: []selectorUse{}, Recorded: []string{}, Errors: []string{}}
	for _, path := range rules {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var rf ruleFile
		if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&rf); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		for _, g := range rf.Groups {
			for _, r := range g.Rules {
				name := r.Alert
				if r.Record != "" {
					name = r.Record
					report.Recorded = append(report.Recorded, r.Record)
				}
				where := fmt.Sprintf("%s: group %s, rule %s", filepath.Base(path), g.Name, name)
				expr, err := parsePromQL(r.Expr)
				if err != nil {
					report.Errors = append(report.Errors, fmt.Sprintf("%s: %v", where, err))
					continue
				}
				report.Uses = append(report.Uses, selectorsOf(expr, where)...)
			}
		}
	}
	for _, path := range dashboards {
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var d dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		base := filepath.Base(path)
		for _, v := range d.Templating.List {
			if v.Type != "query" {
				continue
			}
			exprs, err := variableQueryExprs(v.queryText())
			where := fmt.Sprintf("%s: variable %s", base, v.Name)
			if err != nil {
				report.Errors = append(report.Errors, fmt.Sprintf("%s: %v", where, err))
			}
			for _, e := range exprs {
				expr, err := parsePromQL(e)
				if err != nil {
					report.Errors = append(report.Errors, fmt.Sprintf("%s: %v", where, err))
					continue
				}
				report.Uses = append(report.Uses, selectorsOf(expr, where)...)
			}
		}
		var walk func([]panel)
		walk = func(ps []panel) {
			for _, p := range ps {
				for i, t := range p.Targets {
					where := fmt.Sprintf("%s: panel %q, target %d", base, p.Title, i)
					expr, err := parsePromQL(t.Expr)
					if err != nil {
						report.Errors = append(report.Errors, fmt.Sprintf("%s: %v", where, err))
						continue
					}
					report.Uses = append(report.Uses, selectorsOf(expr, where)...)
				}
				walk(p.Panels)
			}
		}
		walk(d.Panels)
	}
	out := json.NewEncoder(os.Stdout)
	out.SetIndent("", "  ")
	return out.Encode(report)
}
