package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// Chart geometry, in SVG user units.
const (
	chartWidth  = 880
	chartHeight = 420
	panelWidth  = 370 // plot area of one panel
	panelHeight = 240
	panelTop    = 110
	panelLeft   = 60 // left edge of the first plot area
	panelGap    = 70 // between the two plot areas
	barFill     = "#4c78a8"
	lineStroke  = "#e45756"
	gridStroke  = "#dddddd"
)

// WriteSVG writes a self-contained SVG chart of the per-attempt figures, in
// the manner of the PyCapsule paper's Figures 2 and 3: on the left, bars of
// the relative success ratio with the number solved at each attempt index;
// on the right, the normalized influence of each attempt as a line.
func WriteSVG(w io.Writer, s Summary) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		chartWidth, chartHeight, chartWidth, chartHeight)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", chartWidth, chartHeight)
	fmt.Fprintf(&b, `<text x="%d" y="28" text-anchor="middle" font-size="17" font-weight="bold">%s</text>`+"\n",
		chartWidth/2, esc(fmt.Sprintf("Capsule on %s: %s", s.Dataset, s.Model)))
	fmt.Fprintf(&b, `<text x="%d" y="50" text-anchor="middle" fill="#444444">%s</text>`+"\n", chartWidth/2,
		esc(fmt.Sprintf("passed %d of %d (%s), %.2f model calls per problem, up to %d fix attempts",
			s.Passed, s.Total, percent(s.PassRate), s.APICallsMean, s.MaxAttempts)))

	n := len(s.AttemptHistogram)
	left := panel{x: panelLeft, n: n, title: "Relative success ratio", formula: "problems solved at attempt k / all problems solved"}
	left.frame(&b)
	for k, solved := range s.AttemptHistogram {
		r := at(s.RelativeSuccessRatio, k)
		x, y := left.slotX(k), left.y(r)
		bw := left.slot() * 0.6
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s</title></rect>`+"\n",
			x-bw/2, y, bw, panelTop+panelHeight-y, barFill,
			esc(fmt.Sprintf("attempt %d: %d solved, %s of all solved", k, solved, percent(r))))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n",
			x, y-4, esc(fmt.Sprintf("%d (%s)", solved, percent(r))))
	}

	right := panel{x: panelLeft + panelWidth + panelGap, n: n, title: "Normalized influence", formula: "problems solved at attempt k / problems unsolved before k"}
	right.frame(&b)
	points := make([]string, n)
	for k := range n {
		points[k] = fmt.Sprintf("%.1f,%.1f", right.slotX(k), right.y(at(s.NormalizedInfluence, k)))
	}
	if n > 0 {
		fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.Join(points, " "), lineStroke)
	}
	for k := range n {
		v := at(s.NormalizedInfluence, k)
		x, y := right.slotX(k), right.y(v)
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s"><title>%s</title></circle>`+"\n", x, y, lineStroke,
			esc(fmt.Sprintf("attempt %d: %d solved of %d unsolved before it (%s)",
				k, at(s.AttemptHistogram, k), at(s.UnsolvedBefore, k), percent(v))))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11">%s</text>`+"\n", x, y-8, esc(percent(v)))
	}
	b.WriteString("</svg>\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("write svg: %w", err)
	}
	return nil
}

// panel is one plot area: attempt indexes along x, 0-100% along y.
type panel struct {
	x       float64 // left edge
	n       int     // number of attempt indexes
	title   string
	formula string // how the plotted figure is computed
}

// slot is the width given to one attempt index.
func (p panel) slot() float64 { return panelWidth / float64(max(p.n, 1)) }

// slotX is the x of attempt index k's centre.
func (p panel) slotX(k int) float64 { return p.x + (float64(k)+0.5)*p.slot() }

// y maps a fraction in [0, 1] to the plot's y.
func (p panel) y(f float64) float64 {
	return panelTop + panelHeight*(1-min(max(f, 0), 1))
}

// frame draws the panel's title, grid, axes, ticks and axis labels.
func (p panel) frame(b *bytes.Buffer) {
	bottom := float64(panelTop + panelHeight)
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="14" font-weight="bold">%s</text>`+"\n",
		p.x+panelWidth/2, panelTop-30, esc(p.title))
	fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle" font-size="11" fill="#444444">%s</text>`+"\n",
		p.x+panelWidth/2, panelTop-14, esc(p.formula))
	for i := 0; i <= 4; i++ {
		f := float64(i) / 4
		y := p.y(f)
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", p.x, y, p.x+panelWidth, y, gridStroke)
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="end">%d%%</text>`+"\n", p.x-6, y+4, i*25)
	}
	fmt.Fprintf(b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%.1f" stroke="#000000"/>`+"\n", p.x, panelTop, p.x, bottom)
	fmt.Fprintf(b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000000"/>`+"\n", p.x, bottom, p.x+panelWidth, bottom)
	for k := range p.n {
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", p.slotX(k), bottom+16, k)
	}
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle">attempt index (0 = first generation, k = k-th fix)</text>`+"\n",
		p.x+panelWidth/2, bottom+38)
}

// esc escapes text for XML character data and attribute values.
func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
