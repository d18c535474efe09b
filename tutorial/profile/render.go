package profile

// Markdown and HTML renderings of a Report. The HTML is a fragment (one <div>, inline styles, inline SVG) so it
// can be handed to gonbui.DisplayHTML in a notebook or embedded in a page; the charts are drawn directly as SVG
// (a stacked bar of the step-time split, a bar chart of the top kernels) to keep the package free of plotting
// dependencies.

import (
	"fmt"
	"html"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/internal/textfmt"
)

// reportTopKernels is the number of kernels listed in the rendered tables.
const reportTopKernels = 15

type stepPart struct {
	name  string
	ms    float64
	color string
}

func (r *Report) stepParts() []stepPart {
	if r.Step == nil {
		return nil
	}
	m := r.Step.Mean()
	return []stepPart{
		{"data wait", ms(m.DataWait), "#e15759"},
		{"transfer", ms(m.Transfer), "#f28e2b"},
		{"compute", ms(m.Compute), "#4e79a7"},
		{"other", ms(m.Other), "#bab0ac"},
	}
}

// Markdown renders the report as Markdown.
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.title())

	b.WriteString("## Conditions\n\n| | |\n|---|---|\n")
	for _, row := range r.conditionRows() {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], textfmt.MdEsc(row[1]))
	}
	b.WriteString("\n")

	if parts := r.stepParts(); parts != nil {
		total := ms(r.Step.Mean().Total())
		fmt.Fprintf(&b, "## Step time: %.2f ms%s\n\n| part | ms | share |\n|---|---:|---:|\n", total, stepsNote(r.Step))
		for _, p := range parts {
			fmt.Fprintf(&b, "| %s | %.2f | %.1f%% |\n", p.name, p.ms, 100*p.ms/max(total, 1e-12))
		}
		b.WriteString("\n")
	}

	if k := r.Kernels; k != nil {
		fmt.Fprintf(&b, "## GPU (%s)\n\n", k.Device)
		fmt.Fprintf(&b, "| metric | value |\n|---|---:|\n")
		fmt.Fprintf(&b, "| window (%s) | %.2f ms |\n", k.WindowSource, k.WindowUs/1e3)
		fmt.Fprintf(&b, "| kernels | %d |\n", k.KernelCount)
		fmt.Fprintf(&b, "| kernel time | %.2f ms |\n", k.KernelTimeUs/1e3)
		if n := r.steps(); n > 0 {
			fmt.Fprintf(&b, "| kernel time per step | %.2f ms |\n", k.KernelTimeUs/1e3/float64(n))
			fmt.Fprintf(&b, "| kernels per step | %.0f |\n", float64(k.KernelCount)/float64(n))
		}
		fmt.Fprintf(&b, "| GPU busy | %s |\n", fmtPct(k.BusyPct))
		fmt.Fprintf(&b, "| est. SM efficiency | %s |\n", fmtPct(k.SMEfficiencyPct))
		fmt.Fprintf(&b, "| est. achieved occupancy | %s |\n", fmtPct(k.AchievedOccupancyPct))
		fmt.Fprintf(&b, "| kernel time on tensor cores | %s |\n", fmtPct(k.TensorCorePct))
		for _, c := range []struct {
			name string
			s    CopyStat
		}{{"host→device copies", k.H2D}, {"device→host copies", k.D2H}, {"device→device copies", k.D2D}, {"memsets", k.Memset}} {
			if c.s.Count > 0 {
				fmt.Fprintf(&b, "| %s | %d, %s, %.3f ms |\n", c.name, c.s.Count, textfmt.Bytes(c.s.Bytes), c.s.TimeUs/1e3)
			}
		}
		b.WriteString("\n")
		if len(k.Categories) > 0 {
			b.WriteString("### Kernel time by category\n\n| category | ms | share |\n|---|---:|---:|\n")
			for _, c := range k.Categories {
				fmt.Fprintf(&b, "| %s | %.3f | %.1f%% |\n", c.Category, c.TimeUs/1e3, c.Pct)
			}
			b.WriteString("\n")
		}
		if len(k.Kernels) > 0 {
			fmt.Fprintf(&b, "### Top %d kernels\n\n", min(reportTopKernels, len(k.Kernels)))
			b.WriteString("| kernel | HLO op | n | total µs | mean µs | min µs | max µs | grid | block | regs | occ. % (theo/est) | TC |\n")
			b.WriteString("|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|:---:|\n")
			for _, ks := range k.Top(reportTopKernels) {
				op := ks.HloOp
				if ks.HloOps > 1 {
					op += fmt.Sprintf(" (+%d)", ks.HloOps-1)
				}
				tc := ""
				if ks.TensorCore {
					tc = "✓"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %d | %.1f | %.1f | %.1f | %.1f | %s | %s | %d | %s / %s | %s |\n",
					strings.ReplaceAll(shorten(ks.Name, 70), "`", "'"), textfmt.MdEsc(op), ks.Count, ks.TotalUs, ks.MeanUs, ks.MinUs, ks.MaxUs,
					fmtDim3(ks.Grid), fmtDim3(ks.Block), ks.Registers, fmtOcc(ks.TheoreticalOccPct), fmtOcc(ks.AchievedOccPct), tc)
			}
			b.WriteString("\n")
		}
		for _, n := range k.Notes {
			fmt.Fprintf(&b, "- note: %s\n", textfmt.MdEsc(n))
		}
		if len(k.Notes) > 0 {
			b.WriteString("\n")
		}
	}

	if g := r.GPUSampler; g != nil {
		b.WriteString("## NVML sampler\n\n")
		b.WriteString(textfmt.MdEsc(g.String()) + "\n\n")
	}

	if m := r.Memory; m != nil {
		b.WriteString("## Memory\n\n")
		if m.CapacityBytes > 0 {
			fmt.Fprintf(&b, "Device memory: %s.\n\n", textfmt.Bytes(m.CapacityBytes))
		}
		if len(m.Compiled) > 0 {
			b.WriteString("| batch | arguments | outputs | aliased | temporary | code | total (device) |\n|---:|---:|---:|---:|---:|---:|---:|\n")
			for _, c := range m.Compiled {
				d := c.Device
				fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s |\n", c.Batch, textfmt.Bytes(d.Arguments), textfmt.Bytes(d.Outputs),
					textfmt.Bytes(d.Aliases), textfmt.Bytes(d.Temporary), textfmt.Bytes(d.GeneratedCode), textfmt.Bytes(d.Total()))
			}
			b.WriteString("\n")
		}
		if m.Device != nil {
			fmt.Fprintf(&b, "Allocator: in use %s, peak %s, limit %s, pool %s (peak %s).\n\n", textfmt.Bytes(m.Device.BytesInUse),
				textfmt.Bytes(m.Device.PeakBytesInUse), textfmt.Bytes(m.Device.BytesLimit), textfmt.Bytes(m.Device.PoolBytes), textfmt.Bytes(m.Device.PeakPoolBytes))
		}
		if m.Model != nil {
			fmt.Fprintf(&b, "Memory model: %s fixed + %s per sample; largest batch with %.0f%% headroom: **%d**.\n\n",
				textfmt.Bytes(int64(m.Model.FixedBytes)), textfmt.Bytes(int64(m.Model.PerSampleBytes)), 100*m.Headroom, m.PredictedMaxBatch)
		}
	}

	if len(r.Recommendations) > 0 {
		b.WriteString("## Recommendations\n\n")
		for _, rec := range r.Recommendations {
			fmt.Fprintf(&b, "- **%s** — %s.\n  %s\n", rec.Rule, textfmt.MdEsc(rec.Evidence), textfmt.MdEsc(rec.Advice))
		}
		b.WriteString("\n")
	}
	if r.Chrome != nil || r.XPlaneFile != "" {
		b.WriteString("## Traces\n\n")
		if r.Chrome != nil {
			fmt.Fprintf(&b, "- `trace.json.gz`: %d events", r.Chrome.Events)
			if r.Chrome.Truncated {
				fmt.Fprintf(&b, " (truncated from %d)", r.Chrome.Total)
			}
			b.WriteString(" — open in https://ui.perfetto.dev\n")
		}
		if r.XPlaneFile != "" {
			fmt.Fprintf(&b, "- `%s` — XProf / TensorBoard profile plugin (`--logdir` = this directory)\n", r.XPlaneFile)
		}
		b.WriteString("\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "- note: %s\n", textfmt.MdEsc(n))
	}
	return b.String()
}

func stepsNote(s *StepBreakdown) string {
	if s.Steps > 1 {
		return fmt.Sprintf(" (mean of %d steps)", s.Steps)
	}
	return ""
}

func fmtOcc(p float64) string {
	if p < 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f", p)
}

func htmlEsc(s string) string { return html.EscapeString(s) }

// HTML renders the report as a self-contained HTML fragment with inline SVG charts.
func (r *Report) HTML() string {
	var b strings.Builder
	b.WriteString(`<div style="font-family:system-ui,sans-serif;font-size:14px;max-width:980px">`)
	fmt.Fprintf(&b, `<h3 style="margin:4px 0">%s</h3>`, htmlEsc(r.title()))
	const td = `style="padding:2px 8px;border-bottom:1px solid #ddd"`
	const tdr = `style="padding:2px 8px;border-bottom:1px solid #ddd;text-align:right"`

	b.WriteString(`<table style="border-collapse:collapse;margin:6px 0">`)
	for _, row := range r.conditionRows() {
		fmt.Fprintf(&b, `<tr><td %s><b>%s</b></td><td %s>%s</td></tr>`, td, htmlEsc(row[0]), td, htmlEsc(row[1]))
	}
	b.WriteString(`</table>`)

	if parts := r.stepParts(); parts != nil {
		fmt.Fprintf(&b, `<h4 style="margin:8px 0 2px">Step time: %.2f ms%s</h4>`, ms(r.Step.Mean().Total()), htmlEsc(stepsNote(r.Step)))
		b.WriteString(stackedBarSVG(parts))
	}

	if k := r.Kernels; k != nil {
		fmt.Fprintf(&b, `<h4 style="margin:8px 0 2px">GPU %s</h4><table style="border-collapse:collapse">`, htmlEsc(k.Device))
		rows := [][2]string{
			{"window (" + k.WindowSource + ")", fmt.Sprintf("%.2f ms", k.WindowUs/1e3)},
			{"kernels / kernel time", fmt.Sprintf("%d / %.2f ms", k.KernelCount, k.KernelTimeUs/1e3)},
		}
		if n := r.steps(); n > 0 {
			rows = append(rows, [2]string{"kernel time per step", fmt.Sprintf("%.2f ms", k.KernelTimeUs/1e3/float64(n))})
		}
		rows = append(rows,
			[2]string{"GPU busy", fmtPct(k.BusyPct)},
			[2]string{"est. SM efficiency", fmtPct(k.SMEfficiencyPct)},
			[2]string{"est. achieved occupancy", fmtPct(k.AchievedOccupancyPct)},
			[2]string{"kernel time on tensor cores", fmtPct(k.TensorCorePct)},
			[2]string{"H2D / D2H copies", fmt.Sprintf("%d (%s, %.3f ms) / %d (%s, %.3f ms)", k.H2D.Count, textfmt.Bytes(k.H2D.Bytes),
				k.H2D.TimeUs/1e3, k.D2H.Count, textfmt.Bytes(k.D2H.Bytes), k.D2H.TimeUs/1e3)},
		)
		for _, row := range rows {
			fmt.Fprintf(&b, `<tr><td %s>%s</td><td %s>%s</td></tr>`, td, htmlEsc(row[0]), tdr, htmlEsc(row[1]))
		}
		b.WriteString(`</table>`)
		if len(k.Kernels) > 0 {
			fmt.Fprintf(&b, `<h4 style="margin:8px 0 2px">Top kernels by total time</h4>`)
			b.WriteString(topKernelsSVG(k.Top(10)))
			b.WriteString(`<table style="border-collapse:collapse;font-size:12px"><tr>`)
			for _, h := range []string{"kernel", "HLO op", "n", "total µs", "mean µs", "grid", "block", "regs", "occ. theo/est", "TC"} {
				fmt.Fprintf(&b, `<th %s>%s</th>`, td, h)
			}
			b.WriteString(`</tr>`)
			for _, ks := range k.Top(reportTopKernels) {
				tc := ""
				if ks.TensorCore {
					tc = "✓"
				}
				fmt.Fprintf(&b, `<tr><td %s title="%s"><code>%s</code></td><td %s>%s</td><td %s>%d</td><td %s>%.1f</td><td %s>%.1f</td><td %s>%s</td><td %s>%s</td><td %s>%d</td><td %s>%s / %s</td><td %s>%s</td></tr>`,
					td, htmlEsc(ks.Name), htmlEsc(shorten(ks.Name, 60)), td, htmlEsc(ks.HloOp), tdr, ks.Count, tdr, ks.TotalUs, tdr, ks.MeanUs,
					td, fmtDim3(ks.Grid), td, fmtDim3(ks.Block), tdr, ks.Registers, tdr, fmtOcc(ks.TheoreticalOccPct), fmtOcc(ks.AchievedOccPct), td, tc)
			}
			b.WriteString(`</table>`)
		}
		for _, n := range k.Notes {
			fmt.Fprintf(&b, `<div style="color:#666">note: %s</div>`, htmlEsc(n))
		}
	}
	if g := r.GPUSampler; g != nil {
		fmt.Fprintf(&b, `<p><b>NVML:</b> %s</p>`, htmlEsc(g.String()))
	}
	if m := r.Memory; m != nil && (len(m.Compiled) > 0 || m.Device != nil) {
		b.WriteString(`<h4 style="margin:8px 0 2px">Memory</h4><ul style="margin:2px 0">`)
		for _, c := range m.Compiled {
			fmt.Fprintf(&b, `<li>batch %d: compiled device memory %s (temporary %s, arguments %s)</li>`, c.Batch,
				textfmt.Bytes(c.Device.Total()), textfmt.Bytes(c.Device.Temporary), textfmt.Bytes(c.Device.Arguments))
		}
		if m.Device != nil {
			fmt.Fprintf(&b, `<li>allocator peak %s of limit %s</li>`, textfmt.Bytes(m.Device.PeakBytesInUse), textfmt.Bytes(m.Device.BytesLimit))
		}
		if m.Model != nil {
			fmt.Fprintf(&b, `<li>model: %s fixed + %s/sample → largest batch with %.0f%% headroom: <b>%d</b></li>`,
				textfmt.Bytes(int64(m.Model.FixedBytes)), textfmt.Bytes(int64(m.Model.PerSampleBytes)), 100*m.Headroom, m.PredictedMaxBatch)
		}
		b.WriteString(`</ul>`)
	}
	if len(r.Recommendations) > 0 {
		b.WriteString(`<h4 style="margin:8px 0 2px">Recommendations</h4><ul style="margin:2px 0">`)
		for _, rec := range r.Recommendations {
			fmt.Fprintf(&b, `<li><b>%s</b> — %s.<br/>%s</li>`, htmlEsc(rec.Rule), htmlEsc(rec.Evidence), htmlEsc(rec.Advice))
		}
		b.WriteString(`</ul>`)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, `<div style="color:#666">note: %s</div>`, htmlEsc(n))
	}
	b.WriteString(`</div>`)
	return b.String()
}

// stackedBarSVG draws one horizontal bar split into the parts, with a legend.
func stackedBarSVG(parts []stepPart) string {
	const w, barH, legendH = 640.0, 28.0, 22.0
	var total float64
	for _, p := range parts {
		total += p.ms
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-size="12" font-family="sans-serif">`, w, barH+legendH+4)
	x := 0.0
	for _, p := range parts {
		if total <= 0 || p.ms <= 0 {
			continue
		}
		pw := w * p.ms / total
		fmt.Fprintf(&b, `<rect x="%.2f" y="0" width="%.2f" height="%.0f" fill="%s"><title>%s: %.2f ms (%.1f%%)</title></rect>`,
			x, pw, barH, p.color, p.name, p.ms, 100*p.ms/total)
		if pw > 60 {
			fmt.Fprintf(&b, `<text x="%.2f" y="%.0f" fill="white">%.1f%%</text>`, x+4, barH/2+4, 100*p.ms/total)
		}
		x += pw
	}
	lx := 0.0
	for _, p := range parts {
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s %.2f ms</text>`,
			lx, barH+8, p.color, lx+14, barH+17, htmlEsc(p.name), p.ms)
		lx += 160
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// topKernelsSVG draws horizontal bars of the kernels' total time.
func topKernelsSVG(ks []KernelStat) string {
	const labelW, barW, rowH = 380.0, 360.0, 18.0
	var maxUs float64
	for _, k := range ks {
		maxUs = max(maxUs, k.TotalUs)
	}
	h := rowH*float64(len(ks)) + 4
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-size="11" font-family="sans-serif">`, labelW+barW+90, h)
	for i, k := range ks {
		y := float64(i) * rowH
		color := "#4e79a7"
		if k.TensorCore {
			color = "#59a14f"
		}
		bw := 0.0
		if maxUs > 0 {
			bw = barW * k.TotalUs / maxUs
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.0f" text-anchor="end">%s</text>`, labelW-6, y+13, htmlEsc(shorten(k.Name, 58)))
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="%.2f" height="%.0f" fill="%s"><title>%s: %d launches, %.1f µs</title></rect>`,
			labelW, y+2, bw, rowH-4, color, htmlEsc(k.Name), k.Count, k.TotalUs)
		fmt.Fprintf(&b, `<text x="%.2f" y="%.0f">%.0f µs</text>`, labelW+bw+4, y+13, k.TotalUs)
	}
	b.WriteString(`</svg>`)
	return b.String()
}
