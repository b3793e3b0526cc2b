// Package dashboards generates llmprober's Grafana dashboards with the
// Grafana Foundation SDK. The generated JSON is committed beside this file
// (llmprober-overview.json, llmprober-prober-health.json); the package's
// tests fail when a committed file differs from what the code generates, or
// when a query reads a metric that llmprober does not export and no bundled
// recording rule defines. Regenerate with go generate (which runs
// go test -run TestCommittedDashboards -update in this directory).
package dashboards

//go:generate go test -run TestCommittedDashboards -update .

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
)

// Board is a dashboard in Grafana's classic JSON model, which every Grafana
// since version 8 imports and provisions. The SDK marks it deprecated in
// favour of the v2 schema, which only Grafana 12 with dynamic dashboards
// reads; the classic model is kept on purpose.
type Board = dashboard.Dashboard //nolint:staticcheck // classic model on purpose, see above

// boardBuilder builds a Board.
type boardBuilder = dashboard.DashboardBuilder //nolint:staticcheck // classic model on purpose, see Board

// newBoard starts a Board titled title.
func newBoard(title string) *boardBuilder {
	return dashboard.NewDashboardBuilder(title) //nolint:staticcheck // classic model on purpose, see Board
}

// newLLMProberBoard returns a board with the settings both dashboards
// share (tag, crosshair tooltip, 30 s refresh, last 3 hours, browser time
// zone) and the datasource, job and target variables.
func newLLMProberBoard(title, uid, description string) *boardBuilder {
	return newBoard(title).
		Uid(uid).
		Description(description).
		Tags([]string{"llmprober"}).
		Editable().
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		Refresh("30s").
		Time("now-3h", "now").
		Timezone(common.TimeZoneBrowser).
		WithVariable(datasourceVariable()).
		WithVariable(jobVariable()).
		WithVariable(targetVariable())
}

// Generated is one dashboard and the file it is committed as.
type Generated struct {
	// File is the file name under dashboards/, for example
	// "llmprober-overview.json".
	File string
	// Build returns the dashboard; an error means a builder rejected a value.
	Build func() (Board, error)
}

// All returns every bundled dashboard in file-name order.
func All() []Generated {
	return []Generated{
		{File: "llmprober-overview.json", Build: Overview},
		{File: "llmprober-prober-health.json", Build: ProberHealth},
	}
}

// Render returns the committed form of a dashboard: JSON indented by two
// spaces, with a final newline.
func Render(d Board) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(d); err != nil {
		return nil, fmt.Errorf("could not encode dashboard: %w", err)
	}
	return buf.Bytes(), nil
}

// numberPanels gives every panel and row of d a unique id, in layout order.
func numberPanels(d *Board) {
	for i := range d.Panels {
		id := uint32(i + 1)
		switch p := d.Panels[i]; {
		case p.Panel != nil:
			p.Panel.Id = &id
		case p.RowPanel != nil:
			p.RowPanel.Id = id
		}
	}
}

// build finishes b: it builds the dashboard and numbers its panels.
func build(b *boardBuilder) (Board, error) {
	d, err := b.Build()
	if err != nil {
		return Board{}, fmt.Errorf("could not build dashboard: %w", err)
	}
	numberPanels(&d)
	return d, nil
}
