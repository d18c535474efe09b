//go:build race

package cifar

// raceEnabled: the race detector makes sync.Pool drop items on purpose, so
// allocation counts are meaningless under -race.
const raceEnabled = true
