package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gomlx-tutorials/trainopt/tutorial/artifact"
	"github.com/gomlx-tutorials/trainopt/tutorial/backend"
	"github.com/gomlx-tutorials/trainopt/tutorial/cifar"
	"github.com/gomlx-tutorials/trainopt/tutorial/ladder"
	"github.com/gomlx-tutorials/trainopt/tutorial/train"
)

func cmdLadder(args []string) error {
	fs := flag.NewFlagSet("ladder", flag.ContinueOnError)
	lf := addLadderFlags(fs, 60)
	stepList := fs.String("steps", ladder.DefaultSteps, "comma-separated steps to run (e.g. 1,2,10; \"10\" runs every "+
		"10@batch); default: the tutorial's rungs "+ladder.SeedRungs+" and the best rung, "+ladder.BestRung+
		", at the largest batch; all: every step")
	out := fs.String("out", "assets/results", "folder for the run's new <gpu>-<date>T<time>Z-<id>.json/.md/.svg")
	torch := fs.String("torch", "", "PyTorch ladder (torch_ladder.py) and JAX (jax_mobilenet.py) JSON lines measured in the "+
		"same device call, to compare: comma-separated files")
	profileOut := fs.String("profile", "", "also profile every step after its timed window (as trainopt profile does, "+
		"without compiling it again), into this folder's <gpu>-<date>T<time>Z-<id>-step<ID>/")
	capture := fs.Int("capture", 5, "with -profile: training steps inside each kernel-level capture")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := lf.validate("ladder", *stepList); err != nil {
		return err
	}
	if *profileOut != "" {
		var c checks
		c.atLeast("capture", *capture, 1)
		if err := c.err("ladder"); err != nil {
			return err
		}
		if err := checkOut("ladder", *profileOut); err != nil {
			return err
		}
	}
	if err := checkOut("ladder", *out); err != nil {
		return err
	}
	choice, steps, opt, trainSet, err := lf.setup("ladder", *stepList)
	if err != nil {
		return err
	}
	smoke := lf.smoke
	recorded, _ := ladder.ReadCanonical(".") // nil outside the repository: the estimate then counts first calls only
	fmt.Fprintf(os.Stderr, "ladder: %s\n", ladder.Estimate(steps, recorded, opt, smoke).Words(choice.Plan.AutotuneCacheWarm))
	if !smoke { // a smoke run checks that each step trains from scratch; compiling is cheap on the CPU
		opt.Trainers = ladder.NewTrainers()
		defer opt.Trainers.Close()
	}
	file := &ladder.File{Conditions: ladder.NewConditions(choice, trainSet, steps[0], opt, smoke)}
	if *torch != "" {
		if file.Reference, err = readTorch(*torch); err != nil {
			return dataError{err}
		}
	}
	var prof *stepProfiler
	if *profileOut != "" {
		prof = &stepProfiler{choice: choice, capture: *capture, smoke: smoke}
	}
	failed, profilesFailed := 0, 0
	var jsonPath, mdPath string
	ids := func(steps []ladder.Config) string { // "step 1", "steps 1, 2"
		var ids []string
		for _, s := range steps {
			ids = append(ids, s.ID.String())
		}
		return map[bool]string{true: "step ", false: "steps "}[len(ids) == 1] + strings.Join(ids, ", ")
	}
	keptOnInterrupt("nothing (no step had finished)", ids(steps)+" and the charts")
	for i, s := range steps {
		if opt.Trainers != nil {
			// Only consecutive steps share a program (4, 5, 5b, 6): free the others' device memory first, so
			// that the allocator's peak reads as this step's.
			asRun, _ := opt.AsRun(s)
			opt.Trainers.KeepOnly(asRun.TrainerKey())
		}
		if prof != nil {
			prof.hook(&opt, s)
		}
		res, err := ladder.Run(choice.Backend, s, trainSet, opt)
		if err == nil && smoke {
			err = res.Trained() // the smoke run's assertion: each step trained
		}
		if err == nil && prof != nil {
			dir, perr := prof.write(prof.report(s, res, trainSet, opt), *profileOut, s)
			if perr != nil {
				profilesFailed++
				fmt.Fprintf(os.Stderr, "  step %s: profile not written: %v\n", s.ID, perr)
			} else {
				fmt.Fprintf(os.Stderr, "  step %s: profile written to %s\n", s.ID, dir)
			}
		}
		if err != nil {
			failed++
			res.Error = err.Error()
			fmt.Fprintf(os.Stderr, "  step %s FAILED: %v\n", s.ID, err)
		}
		file.Results = append(file.Results, res)
		// Written after every step: a long run that dies keeps what it measured. An interrupt waits for the write.
		err = uninterrupted(func() (kept, lost string, err error) {
			if jsonPath, mdPath, err = file.Write(*out); err != nil {
				return "", "", err
			}
			kept = fmt.Sprintf("%s and %s with the results of %s (%d of %d)", jsonPath, mdPath, ids(steps[:i+1]),
				i+1, len(steps))
			lost = fmt.Sprintf("the charts (trainopt results %s draws them)", jsonPath)
			if i+1 < len(steps) {
				lost = ids(steps[i+1:]) + " and " + lost
			}
			return kept, lost, nil
		})
		if err != nil {
			return err
		}
	}
	var charts []string
	chartErr := uninterrupted(func() (string, string, error) {
		charts, err = file.WriteCharts(*out)
		return fmt.Sprintf("%s, %s and its charts", jsonPath, mdPath), "", err
	})
	// The results are said even when the charts fail (every step failed: nothing to draw).
	fmt.Print(file.Markdown())
	if line := choice.ExecutableCacheLine(); line != "" {
		fmt.Fprintln(os.Stderr, "ladder: "+line)
	}
	fmt.Printf("\nresults: %s\n", strings.Join(append([]string{jsonPath, mdPath}, charts...), ", "))
	if chartErr != nil {
		if failed == 0 {
			return chartErr
		}
		fmt.Fprintf(os.Stderr, "ladder: charts not drawn: %v\n", chartErr)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d ladder steps failed", failed, len(steps))
	}
	if profilesFailed > 0 {
		return fmt.Errorf("%d of %d profiles were not written", profilesFailed, len(steps))
	}
	return nil
}

// readTorch reads the other frameworks' outputs named by a -torch/-jax flag: comma-separated files of
// torch_ladder.py's or jax_mobilenet.py's JSON lines.
func readTorch(list string) ([]ladder.Reference, error) {
	var paths []string
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			paths = append(paths, p)
		}
	}
	return ladder.ReadReferences(paths...)
}

// cmdResults re-renders a results file's Markdown table and charts (after editing or merging results files), and
// the results blocks of a document such as the README.
func cmdResults(args []string) error {
	fs := flag.NewFlagSet("results", flag.ContinueOnError)
	torch := fs.String("torch", "", "attach PyTorch ladder (torch_ladder.py) and JAX (jax_mobilenet.py) JSON lines "+
		"measured in the same device call: comma-separated files")
	readme := fs.String("readme", "", "regenerate the results blocks of this document (e.g. README.md) from the "+
		"files they name, relative to its folder")
	combine := fs.String("combine", "", "write the results of the files given (one device call, a process each) "+
		"into this one new file, then render it")
	if err := fs.Parse(args); err != nil {
		return usageError{err}
	}
	if fs.NArg() == 0 && *readme == "" {
		return usageError{fmt.Errorf("results: give one or more results .json files, or -readme DOC")}
	}
	paths := fs.Args()
	if *combine != "" {
		if err := combineResults(*combine, paths); err != nil {
			return err
		}
		paths = []string{*combine}
	}
	for _, path := range paths {
		f, err := ladder.Read(path)
		if err != nil {
			return dataError{err}
		}
		if *torch != "" {
			if f.Reference, err = readTorch(*torch); err != nil {
				return dataError{err}
			}
			if err := artifact.WriteJSON(path, f); err != nil {
				return err
			}
		}
		dir := filepath.Dir(path)
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		md := filepath.Join(dir, name+".md")
		if err := artifact.WriteFile(md, []byte(f.Markdown())); err != nil {
			return err
		}
		charts, err := f.WriteChartsAs(dir, name)
		if err != nil {
			return err
		}
		fmt.Printf("%s → %s, %s\n", path, md, strings.Join(charts, ", "))
	}
	if *readme != "" {
		return syncReadme(*readme)
	}
	return nil
}

// combineResults writes the results of the files at paths into a new file at out (ladder.Combine).
func combineResults(out string, paths []string) error {
	if _, err := os.Stat(out); err == nil {
		return usageError{fmt.Errorf("results: -combine %s exists; combining never replaces a file", out)}
	}
	var files []*ladder.File
	var names []string
	for _, p := range paths {
		f, err := ladder.Read(p)
		if err != nil {
			return dataError{err}
		}
		files = append(files, f)
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".json"))
	}
	f, err := ladder.Combine(names, files)
	if err != nil {
		return dataError{err}
	}
	_, err = f.WriteAs(out)
	return err
}

func syncReadme(path string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return dataError{err}
	}
	out, n, err := ladder.SyncResultBlocks(string(doc), filepath.Dir(path))
	if err != nil {
		return dataError{err}
	}
	if n == 0 {
		return dataError{fmt.Errorf("%s has no results blocks (<!-- results: FILE.json --> … <!-- end results -->)", path)}
	}
	if out == string(doc) {
		fmt.Printf("%s: %d results blocks, already up to date\n", path, n)
		return nil
	}
	fmt.Printf("%s: %d results blocks regenerated\n", path, n)
	return artifact.WriteFile(path, []byte(out))
}

// ladderFlags are the flags that the ladder, profile and memory commands share: the ladder's parameters and the
// measurement come from tutorial/ladder's registrations, with its defaults.
type ladderFlags struct {
	dataDir     string
	params      ladder.Params
	formulation string
	opt         ladder.Options
	smoke       bool
	fs          *flag.FlagSet
	timedMin    int // 1; 0 where the command sets the timed window itself (memory)
}

func addLadderFlags(fs *flag.FlagSet, timedDefault int) *ladderFlags {
	f := &ladderFlags{params: ladder.DefaultParams(), opt: ladder.DefaultOptions(), fs: fs, timedMin: min(timedDefault, 1)}
	f.opt.Steps = timedDefault
	fs.StringVar(&f.dataDir, "data", "data", "CIFAR-10 folder; without it, synthetic data is generated (and said)")
	f.params.RegisterFlags(fs)
	fs.StringVar(&f.formulation, "model", "", ladder.FormulationUsage)
	f.opt.RegisterFlags(fs)
	fs.BoolVar(&f.smoke, "smoke", false, "tiny sizes (width 0.25, 48 px, batch 16): checks every step trains; "+
		"automatic on a machine without a GPU")
	return f
}

// given reports whether the command line set the flag (smoke sizes replace defaults, never a value given).
func (f *ladderFlags) given(name string) bool {
	set := false
	f.fs.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
}

// validate checks the shared flags and the step list before any work (see validate.go): the numbers, the batch
// list (its flag refuses what is not a list of positive integers), the step IDs and the -model formulation.
func (f *ladderFlags) validate(cmd, ids string) error {
	var c checks
	c.atLeast("k", f.params.StepsPerCall, 1)
	c.atLeast("warmup", f.opt.Warmup, 0)
	c.atLeast("timed", f.opt.Steps, f.timedMin)
	steps, err := ladder.Select(ladder.Ladder(f.params), ids)
	c.add(err)
	if err == nil {
		_, err = ladder.WithFormulation(steps, f.formulation)
		c.add(err)
	}
	return c.err(cmd)
}

// setup discovers the backend, switches to smoke sizes without a GPU (and to one step per call where the backend
// cannot loop a gradient), builds the selected ladder steps and their options, and loads the training set.
func (f *ladderFlags) setup(cmd, ids string) (choice *backend.Choice, steps []ladder.Config, opt ladder.Options,
	trainSet *cifar.Set, err error) {
	if choice, err = backend.Discover(); err != nil {
		return
	}
	if !choice.IsGPU && !f.smoke {
		fmt.Fprintf(os.Stderr, "%s: no GPU — running smoke sizes on the CPU (numbers show that each step trains, not speed)\n", cmd)
		f.smoke = true
	}
	if !train.IsXLA(choice.Backend) && f.params.StepsPerCall > 1 {
		fmt.Fprintf(os.Stderr, "%s: step 10 runs 1 step per call on %s (its While loop cannot hold a gradient yet)\n", cmd, choice.Backend)
		f.params.StepsPerCall = 1
	}
	p := f.params
	if f.smoke && cmd == "ladder" {
		p.Batches = []int{128} // run one variant of steps 9 and up: smoke sizes set every batch to 16
	}
	steps = ladder.Ladder(p)
	if f.smoke {
		for i := range steps {
			steps[i] = steps[i].Smoke()
		}
	}
	if steps, err = ladder.Select(steps, ids); err != nil {
		err = usageError{err}
		return
	}
	if steps, err = ladder.WithFormulation(steps, f.formulation); err != nil {
		err = usageError{err}
		return
	}
	opt = f.opt
	nTrain := 0
	if f.smoke {
		smokeOpt := ladder.SmokeOptions()
		nTrain = ladder.SmokeTrainImages
		// The smoke sizes replace the defaults, not a value given on the command line.
		if !f.given("warmup") {
			opt.Warmup = smokeOpt.Warmup
		}
		if !f.given("timed") {
			opt.Steps = smokeOpt.Steps
		}
		if cmd == "ladder" {
			how := "the smoke sizes' own; -warmup and -timed change them"
			if f.given("warmup") || f.given("timed") {
				how = "smoke sizes with what -warmup/-timed gave"
			}
			fmt.Fprintf(os.Stderr, "%s: warm-up %d and %d timed steps per ladder step (%s)\n", cmd, opt.Warmup, opt.Steps, how)
		}
	}
	opt.Progress = os.Stderr
	opt.FastStart = choice.FastStartKernels() // TRAINOPT_FAST_START=on: the Triton depthwise kernels
	if trainSet, _, err = loadData(f.dataDir, false, nTrain, 100); err != nil {
		return
	}
	for _, s := range steps {
		if s.Batch > trainSet.Len() {
			err = usageError{fmt.Errorf("%s: step %s's batch %d is larger than the %d training images (-batches)",
				cmd, s.ID, s.Batch, trainSet.Len())}
			return
		}
	}
	return
}
