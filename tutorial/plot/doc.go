// Package plot renders the optimisation ladder's results as pictures and tables,
// for GoNB notebooks and for files under assets/.
//
// Every chart is an SVG (gonum.org/v1/plot with its vgsvg backend) of 8×4.5
// inches whose caption — the conditions of the measurement: GPU, date,
// versions, synthetic or real data — is drawn inside the picture, under the
// chart, so that a figure copied out of its notebook or README never loses the
// context needed to read it.
//
// Output is deterministic (same input, same bytes), so regenerated assets only
// show up in a diff when the numbers changed. Colours come from the Okabe–Ito
// palette, which stays distinguishable for the common forms of colour
// blindness; line series also differ by dash pattern, so they survive a
// greyscale print.
package plot
