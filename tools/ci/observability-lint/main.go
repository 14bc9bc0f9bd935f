// Command observability-lint checks the Grafana dashboards and Prometheus rules of deploy/observability.
//
//	observability-lint dashboards [--lint FILE] DASHBOARD.json...
//	observability-lint metrics [--rules FILE]... [--dashboards FILE]...
//
// `dashboards` decodes each dashboard strictly with the Grafana Foundation SDK's own types (an unknown field, a
// wrong type or a panel option its panel plugin does not have is an error), validates it the way the SDK does, and
// then applies the rules of Grafana's dashboard-linter (same names, same `.lint` exclusions file), which the Go
// module proxy does not serve: every rule is an error, so a dashboard passes only when it has none or an
// exclusion with a reason covers it. An exclusion that matches nothing is an error too.
//
// `metrics` prints, as JSON, every metric selector used by an alerting or recording rule, a dashboard panel or a
// dashboard variable, parsed with Prometheus' own PromQL parser: the metric name, the label names it matches on
// and where it is used. tools/ci/check-metric-names.cjs compares them with what the apps export.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "dashboards":
		err = runDashboards(os.Args[2:])
	case "metrics":
		err = runMetrics(os.Args[2:])
	case "-h", "--help", "help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "observability-lint: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "observability-lint: %v\n", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: observability-lint dashboards [--lint FILE] DASHBOARD.json...")
	fmt.Fprintln(os.Stderr, "       observability-lint metrics [--rules FILE]... [--dashboards FILE]...")
	os.Exit(2)
}
