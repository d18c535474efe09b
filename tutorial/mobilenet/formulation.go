package mobilenet

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A formulation is how the network is computed, not what it is: the Config fields past NumClasses, Width and
// Dropout change kernels and summation order, never the parameters or the function (up to rounding). The
// ladder's steps past 10 are formulations, and the CLI's -model flag sets any of them for an experiment, so
// they have a text form: comma-separated key=value pairs, e.g. "relu6=masked,dw-input-grad=shifted".

// formulationKey is one setting of the text form: its values in order (the first is the default) or, for
// numeric settings, nil.
type formulationKey struct {
	name   string
	values []string
	get    func(Config) string
	set    func(*Config, string) error
}

var formulationKeys = []formulationKey{
	{name: "reduction-row",
		get: func(c Config) string { return strconv.Itoa(c.ReductionRow) },
		set: func(c *Config, v string) (err error) { c.ReductionRow, err = nonNegative(v); return }},
	{name: "relu6", values: []string{"clip", "masked"},
		get: func(c Config) string { return pick(c.MaskedReLU6, "masked", "clip") },
		set: func(c *Config, v string) error { c.MaskedReLU6 = v == "masked"; return nil }},
	{name: "bn", values: []string{"compute", "float32"},
		get: func(c Config) string { return pick(c.NormalizeFloat32, "float32", "compute") },
		set: func(c *Config, v string) error { c.NormalizeFloat32 = v == "float32"; return nil }},
	{name: "bn-sums", values: sumsNames,
		get: func(c Config) string { return c.Sums.String() },
		set: func(c *Config, v string) error { c.Sums = BNSums(slices.Index(sumsNames, v)); return nil }},
	depthwiseKey("dw-forward", forwardNames, func(d *DepthwiseForm) *ForwardForm { return &d.Forward }),
	depthwiseKey("dw-input-grad", inputGradNames, func(d *DepthwiseForm) *InputGradient { return &d.Input }),
	depthwiseKey("dw-kernel-grad", kernelGradNames, func(d *DepthwiseForm) *KernelGradient { return &d.Kernel }),
	depthwiseKey("dw-prologue", prologueNames, func(d *DepthwiseForm) *Prologue { return &d.Prologue }),
	depthwiseKey("dw-epilogue", epilogueNames, func(d *DepthwiseForm) *Epilogue { return &d.Epilogue }),
	depthwiseKey("dw-tiling", tilingNames, func(d *DepthwiseForm) *Tiling { return &d.Tiling }),
	tileKey("dw-row-channels", 8, 128, true, func(c *Config) *int { return &c.Depthwise.RowTile.Channels }),
	tileKey("dw-row-width", 4, 64, true, func(c *Config) *int { return &c.Depthwise.RowTile.Width }),
	tileKey("dw-row-rows", 1, 64, false, func(c *Config) *int { return &c.Depthwise.RowTile.Rows }),
	tileKey("dw-row-per-thread", 1, 16, true, func(c *Config) *int { return &c.Depthwise.RowTile.PerThread }),
	tileKey("dw-row-unroll", 1, 8, false, func(c *Config) *int { return &c.Depthwise.RowTile.Unroll }),
	{name: "dw-row-carry", values: []string{"rows", "sums"},
		get: func(c Config) string { return pick(c.Depthwise.RowTile.CarrySums, "sums", "rows") },
		set: func(c *Config, v string) error { c.Depthwise.RowTile.CarrySums = v == "sums"; return nil }},
	{name: "dw-row-tiles", values: []string{"one", "per-layer"},
		get: func(c Config) string { return pick(c.Depthwise.RowTile.PerLayer, "per-layer", "one") },
		set: func(c *Config, v string) error { c.Depthwise.RowTile.PerLayer = v == "per-layer"; return nil }},
	{name: "stem-channels",
		get: func(c Config) string { return strconv.Itoa(max(c.StemChannels, 0)) },
		set: func(c *Config, v string) (err error) {
			if c.StemChannels, err = nonNegative(v); err == nil && c.StemChannels > 0 && c.StemChannels < 3 {
				err = fmt.Errorf("%d is fewer than the image's 3 channels", c.StemChannels)
			}
			return
		}},
	{name: "stem", values: stemNames,
		get: func(c Config) string { return c.Stem.String() },
		set: func(c *Config, v string) error { c.Stem = StemForm(slices.Index(stemNames, v)); return nil }},
	{name: "expand-grad", values: expandGradNames,
		get: func(c Config) string { return c.ExpandGrad.String() },
		set: func(c *Config, v string) error {
			c.ExpandGrad = ExpandGradForm(slices.Index(expandGradNames, v))
			return nil
		}},
	tileKey("expand-grad-pixels", 16, 128, true, func(c *Config) *int { return &c.ExpandGradTile.Pixels }),
	tileKey("expand-grad-warps", 1, 8, true, func(c *Config) *int { return &c.ExpandGradTile.Warps }),
	{name: "project-prologue", values: []string{"none", "bn-relu6"},
		get: func(c Config) string { return pick(c.ProjectPrologue, "bn-relu6", "none") },
		set: func(c *Config, v string) error { c.ProjectPrologue = v == "bn-relu6"; return nil }},
	{name: "project-sums", values: []string{"xla", "kernel"},
		get: func(c Config) string { return pick(c.ProjectSums, "kernel", "xla") },
		set: func(c *Config, v string) error { c.ProjectSums = v == "kernel"; return nil }},
	tileKey("project-pixels", 16, 256, true, func(c *Config) *int { return &c.ProjectTile.Pixels }),
	tileKey("project-channels", 16, 128, true, func(c *Config) *int { return &c.ProjectTile.Channels }),
	tileKey("project-programs", 16, 8192, true, func(c *Config) *int { return &c.ProjectTile.Programs }),
	tileKey("project-warps", 1, 8, true, func(c *Config) *int { return &c.ProjectTile.Warps }),
	tileKey("project-stages", 1, 4, false, func(c *Config) *int { return &c.ProjectTile.Stages }),
	{name: "pointwise", values: []string{"conv", "dot"},
		get: func(c Config) string { return pick(c.PointwiseDot, "dot", "conv") },
		set: func(c *Config, v string) error { c.PointwiseDot = v == "dot"; return nil }},
}

var (
	forwardNames    = []string{"conv", "shifted", "triton", "triton-stats"}
	inputGradNames  = []string{"dilated", "shifted", "phases", "phase-products", "triton", "triton-strided"}
	kernelGradNames = []string{"auto", "batch-group", "shifted", "triton", "in-dx"}
	prologueNames   = []string{"none", "bn-relu6", "bn-relu6-backward"}
	epilogueNames   = []string{"none", "bn-relu6-backward"}
	tilingNames     = []string{"gather", "rows"}
	stemNames       = []string{"conv", "patches", "space-to-depth"}   // StemForm's values in order
	sumsNames       = []string{"separate", "joint", "triton", "gram"} // BNSums's values in order
	expandGradNames = []string{"xla", "fused", "distributed"}         // ExpandGradForm's values in order
)

// depthwiseKey is the setting of one of DepthwiseForm's enums, whose values are the indices of names.
func depthwiseKey[E ~int](name string, names []string, field func(*DepthwiseForm) *E) formulationKey {
	return formulationKey{name: name, values: names,
		get: func(c Config) string { return enumName(names, int(*field(&c.Depthwise))) },
		set: func(c *Config, v string) error {
			*field(&c.Depthwise) = E(slices.Index(names, v))
			return nil
		}}
}

// tileKey is a numeric setting of a kernel's tile (the row kernels', the fused expansion's, the projection's):
// 0 (the default tile's) or a number in [lo, hi], a power of two where pow2 (Triton's tensor sizes).
func tileKey(name string, lo, hi int, pow2 bool, field func(*Config) *int) formulationKey {
	return formulationKey{name: name,
		get: func(c Config) string { return strconv.Itoa(*field(&c)) },
		set: func(c *Config, v string) error { return setTileInt(field(c), v, lo, hi, pow2) }}
}

// setTileInt sets *dst to v, which must be 0 (the default) or a number in [lo, hi], a power of two if pow2.
func setTileInt(dst *int, v string, lo, hi int, pow2 bool) error {
	n, err := nonNegative(v)
	if err == nil && n != 0 && (n < lo || n > hi || pow2 && n&(n-1) != 0) {
		kind := "a number"
		if pow2 {
			kind = "a power of two"
		}
		err = fmt.Errorf("want 0 (the default) or %s from %d to %d, got %d", kind, lo, hi, n)
	}
	*dst = n
	return err
}

func (f ForwardForm) String() string    { return enumName(forwardNames, int(f)) }
func (g InputGradient) String() string  { return enumName(inputGradNames, int(g)) }
func (g KernelGradient) String() string { return enumName(kernelGradNames, int(g)) }
func (p Prologue) String() string       { return enumName(prologueNames, int(p)) }
func (p Epilogue) String() string       { return enumName(epilogueNames, int(p)) }
func (t Tiling) String() string         { return enumName(tilingNames, int(t)) }
func (s StemForm) String() string       { return enumName(stemNames, int(s)) }
func (s BNSums) String() string         { return enumName(sumsNames, int(s)) }
func (e ExpandGradForm) String() string { return enumName(expandGradNames, int(e)) }

func enumName(names []string, i int) string {
	if i < 0 || i >= len(names) {
		return strconv.Itoa(i)
	}
	return names[i]
}

func pick(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

func nonNegative(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a whole number ≥ 0, got %q", v)
	}
	return n, nil
}

// Formulation is the text form of c's settings that differ from the plain model ("" for the plain model).
func (c Config) Formulation() string {
	var parts []string
	plain := Config{}
	for _, k := range formulationKeys {
		if v := k.get(c); v != k.get(plain) {
			parts = append(parts, k.name+"="+v)
		}
	}
	return strings.Join(parts, ",")
}

// SetFormulation applies the settings of a text form (see Formulation) to c, leaving the others as they are.
// Errors name the setting and what it accepts.
func (c *Config) SetFormulation(text string) error {
	for part := range strings.SplitSeq(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, ok := strings.Cut(part, "=")
		i := slices.IndexFunc(formulationKeys, func(k formulationKey) bool { return k.name == name })
		if !ok || i < 0 {
			return fmt.Errorf("model formulation %q: want key=value with key one of %s", part, formulationKeyList())
		}
		k := formulationKeys[i]
		if k.values != nil && !slices.Contains(k.values, value) {
			return fmt.Errorf("model formulation %q: %s is one of %s", part, name, strings.Join(k.values, ", "))
		}
		if err := k.set(c, value); err != nil {
			return fmt.Errorf("model formulation %q: %v", part, err)
		}
	}
	d := c.Depthwise
	tritonReads := d.Forward.isTriton() || d.Kernel == KernelGradTriton ||
		d.Kernel == KernelGradInDx
	if d.Tiling != TilingGather && !tritonReads {
		return fmt.Errorf("model formulation %q: dw-tiling=%s is how the Triton kernels walk the image, so it needs "+
			"dw-forward=triton (or triton-stats) or dw-kernel-grad=triton", text, d.Tiling)
	}
	if d.RowTile != (RowTile{}) && d.Tiling != TilingRows {
		return fmt.Errorf("model formulation %q: dw-row-… set the tile of the kernels that walk rows, so they need "+
			"dw-tiling=rows", text)
	}
	if t := d.RowTile; t.PerLayer && (t.Channels != 0 || t.Width != 0 || t.Rows != 0 || t.PerThread != 0) {
		return fmt.Errorf("model formulation %q: dw-row-tiles=per-layer takes each kernel's channels, width, rows "+
			"and per-thread from its table, so it cannot go with dw-row-channels, -width, -rows or -per-thread", text)
	}
	if d.Prologue != PrologueNone && !tritonReads {
		return fmt.Errorf("model formulation %q: dw-prologue=%s is done by the Triton kernels, so it needs "+
			"dw-forward=triton (or triton-stats) or dw-kernel-grad=triton", text, d.Prologue)
	}
	if d.Kernel == KernelGradInDx && (d.Prologue != PrologueBNReLU6Backward || d.Input != InputGradTriton || d.Tiling != TilingRows) {
		return fmt.Errorf("model formulation %q: dw-kernel-grad=in-dx makes dK in the dx row kernel that starts batch "+
			"norm's backward pass, so it needs dw-prologue=bn-relu6-backward, dw-input-grad=triton and dw-tiling=rows", text)
	}
	if d.Epilogue != EpilogueNone && d.Kernel != KernelGradInDx {
		return fmt.Errorf("model formulation %q: dw-epilogue=%s makes dy in the dx row kernel that also makes dK, so "+
			"it needs dw-kernel-grad=in-dx", text, d.Epilogue)
	}
	if c.ExpandGradTile != (ExpandGradTile{}) && c.ExpandGrad != ExpandGradFused {
		return fmt.Errorf("model formulation %q: expand-grad-pixels and expand-grad-warps are the tile of "+
			"expand-grad=fused, so they need it", text)
	}
	if c.ExpandGrad != ExpandGradXLA && d.Prologue != PrologueBNReLU6Backward {
		return fmt.Errorf("model formulation %q: expand-grad=%s starts from the gradient that "+
			"dw-prologue=bn-relu6-backward makes, so it needs it", text, c.ExpandGrad)
	}
	if c.ProjectSums && !c.ProjectPrologue {
		return fmt.Errorf("model formulation %q: project-sums=kernel sums the output of project-prologue=bn-relu6's "+
			"forward kernel, so it needs it", text)
	}
	if c.ProjectTile != (ProjectTile{}) && !c.ProjectPrologue {
		return fmt.Errorf("model formulation %q: project-pixels, -channels, -programs, -warps and -stages are the "+
			"tile of project-prologue=bn-relu6's kernels, so they need it", text)
	}
	if c.ProjectPrologue && !d.Forward.isTriton() {
		return fmt.Errorf("model formulation %q: project-prologue=bn-relu6 runs Triton kernels where the depthwise "+
			"layers' do, so it needs dw-forward=triton (or triton-stats)", text)
	}
	if d.Prologue == PrologueBNReLU6Backward && d.Input != InputGradTriton {
		return fmt.Errorf("model formulation %q: dw-prologue=%s starts batch norm's backward pass in the Triton "+
			"input-gradient kernel, so it needs dw-input-grad=triton", text, d.Prologue)
	}
	return nil
}

// FormulationKeys are the names of the text form's settings, in order: help texts list them from here, so a new
// setting cannot be missing there.
func FormulationKeys() []string {
	names := make([]string, len(formulationKeys))
	for i, k := range formulationKeys {
		names[i] = k.name
	}
	return names
}

func formulationKeyList() string {
	var names []string
	for _, k := range formulationKeys {
		if k.values != nil {
			names = append(names, k.name+" ("+strings.Join(k.values, "|")+")")
		} else {
			names = append(names, k.name+" (a number)")
		}
	}
	return strings.Join(names, ", ")
}
