// Package ladder is the tutorial's optimisation ladder: each rung is a [Config] — the previous rung plus one
// edit — a runner that measures it honestly (warm-up, a timed window, median and spread, compile time apart, the
// step time split into data wait / transfer / compute), and the results file that the README, the plots and the
// notebooks read.
//
//   - config.go: Config, the whole rung in one value, and the halves derived from it (Train, Feed, TrainerKey).
//   - rungs.go: Baseline, Rung(n), Params, Ladder, Plan, Select — the rungs as edits.
//   - stepid.go: StepID and ParseStepID, the one reader of "12", "12@512", "13@512+dw-input-grad=phases".
//   - flags.go: RegisterFlags of Config, Params and Options — a command line (the CLI's, a GoNB cell's) to values.
//   - run.go: Run (build the trainer and the feed, then train.Loop) and the Trainers cache its owner frees.
//   - result.go, results.go, readme.go, charts.go, display.go: a step's Result, the results File (JSON, Markdown,
//     the README's generated blocks, SVG charts, the notebooks' HTML tables and comparisons).
//   - runs.go, recorded.go, trainrun.go: a runs file that grows one step at a time, the readers of what the GPU
//     machine recorded under assets/, and `trainopt train`'s summary file.
package ladder
