// Package artifact is what every file the tutorial writes has in common: the [Conditions] a measurement was made
// under (GPU, date, versions, data, the code's VCS revision), an atomic writer (a reader never sees half a file),
// and the one function that turns a device or step name into a file name. The ladder's results, the profile
// reports, the memory checks and `trainopt train`'s summaries all use it; it imports nothing of the tutorial's, so
// every package can.
package artifact
