package dashboards

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Query is one PromQL query of a dashboard's JSON: a panel target, or the
// label_values query of a template variable rewritten as
// count by (label) (selector).
type Query struct {
	// Dashboard is the dashboard's title.
	Dashboard string
	// Panel is the panel's title, or "variable <name>".
	Panel string
	// RefID is the target's reference id (A, B, …); empty for a variable.
	RefID string
	// Expr is the expression, with Grafana variables not yet expanded.
	Expr string
	// Legend is the target's legend format ("{{target}} p99"); empty for a
	// variable.
	Legend string
	// Unit is the panel's unit (fieldConfig.defaults.unit); empty for a
	// variable or a panel without one.
	Unit string
	// Datasource is the uid of the panel's and the target's data source,
	// "a | b" when they differ.
	Datasource string
}

// String names the query for error messages: dashboard, panel and ref id.
func (q Query) String() string {
	if q.RefID == "" {
		return fmt.Sprintf("%s / %s", q.Dashboard, q.Panel)
	}
	return fmt.Sprintf("%s / %s / %s", q.Dashboard, q.Panel, q.RefID)
}

// jsonPanel is the part of a panel (or row) of dashboard JSON read here.
type jsonPanel struct {
	Type       string      `json:"type"`
	Title      string      `json:"title"`
	Datasource *jsonDS     `json:"datasource"`
	Panels     []jsonPanel `json:"panels"`
	Targets    []struct {
		RefID      string  `json:"refId"`
		Expr       string  `json:"expr"`
		Legend     string  `json:"legendFormat"`
		Datasource *jsonDS `json:"datasource"`
	} `json:"targets"`
	FieldConfig struct {
		Defaults struct {
			Unit string `json:"unit"`
		} `json:"defaults"`
	} `json:"fieldConfig"`
}

// jsonDS is a data source reference.
type jsonDS struct {
	UID string `json:"uid"`
}

// jsonDashboard is the part of dashboard JSON read here.
type jsonDashboard struct {
	Title      string      `json:"title"`
	Panels     []jsonPanel `json:"panels"`
	Templating struct {
		List []struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			Query any    `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

// labelValues matches Grafana's label_values(selector, label).
var labelValues = regexp.MustCompile(`^label_values\((.+),\s*(\w+)\)$`)

// Queries returns every panel query (rows' nested panels included) and every
// label_values variable query of a dashboard's JSON, in order. It fails on
// JSON it cannot read or a query variable that is not label_values.
func Queries(raw []byte) ([]Query, error) {
	var d jsonDashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("could not read dashboard JSON: %w", err)
	}
	var out []Query
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		s, _ := v.Query.(string)
		m := labelValues.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("dashboard %q: variable %s: query %q is not label_values(selector, label)", d.Title, v.Name, s)
		}
		out = append(out, Query{Dashboard: d.Title, Panel: "variable " + v.Name,
			Expr: fmt.Sprintf("count by (%s) (%s)", m[2], m[1])})
	}
	var walk func([]jsonPanel)
	walk = func(ps []jsonPanel) {
		for _, p := range ps {
			walk(p.Panels)
			for _, t := range p.Targets {
				out = append(out, Query{Dashboard: d.Title, Panel: p.Title, RefID: t.RefID, Expr: t.Expr, Legend: t.Legend,
					Unit: p.FieldConfig.Defaults.Unit, Datasource: dsUID(p.Datasource, t.Datasource)})
			}
		}
	}
	walk(d.Panels)
	return out, nil
}

// dsUID returns the uid of panel and target, joined by " | " when they differ.
func dsUID(panel, target *jsonDS) string {
	uid := func(d *jsonDS) string {
		if d == nil {
			return ""
		}
		return d.UID
	}
	if uid(panel) == uid(target) {
		return uid(panel)
	}
	return uid(panel) + " | " + uid(target)
}

// variableRef matches $name, ${name}, ${name:format} and [[name]].
var variableRef = regexp.MustCompile(`\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]`)

// errUnknownVariable means Expand met a variable without a value.
var errUnknownVariable = errors.New("no value for variable")

// Expand replaces every Grafana variable reference in expr by its value in
// vars (keys without "$": "target", "__rate_interval"). A reference without
// a value is an error naming it.
func Expand(expr string, vars map[string]string) (string, error) {
	var missing []string
	out := variableRef.ReplaceAllStringFunc(expr, func(ref string) string {
		m := variableRef.FindStringSubmatch(ref)
		name := m[1] + m[2] + m[3]
		v, ok := vars[name]
		if !ok {
			missing = append(missing, name)
			return ref
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%w: %s in %q", errUnknownVariable, strings.Join(missing, ", "), expr)
	}
	return out, nil
}
