//go:build !race

package cifar

const raceEnabled = false
