package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"slices"
	"time"
)

// sample is one process's wall time and peak resident set.
type sample struct {
	wall time.Duration
	rss  int64 // bytes
}

func (s sample) rssMB() float64 { return float64(s.rss) / (1 << 20) }

// measure runs a command to completion; a non-zero exit is an error, since
// a failed build would time the wrong work.
func measure(name string, args ...string) (sample, error) { return measureExit(0, name, args...) }

// measureExit is measure for a command that must exit with code want: a
// refusal timed as such.
func measureExit(want int, name string, args ...string) (sample, error) {
	cmd := exec.Command(name, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if code := cmd.ProcessState.ExitCode(); err != nil && code == want && want != 0 {
		err = nil
	} else if err == nil && want != 0 {
		err = fmt.Errorf("exit 0, want %d", want)
	}
	if err != nil {
		tail := stderr.Bytes()
		if len(tail) > 4000 {
			tail = append([]byte("…"), tail[len(tail)-4000:]...)
		}
		return sample{}, fmt.Errorf("%s %v: %w\n%s", name, args, err, tail)
	}
	return sample{wall: wall, rss: maxRSS(cmd.ProcessState)}, nil
}

// median runs f n times and returns the median sample.
func median(n int, f func() (sample, error)) (sample, error) {
	var all []sample
	for i := 0; i < n; i++ {
		s, err := f()
		if err != nil {
			return sample{}, err
		}
		all = append(all, s)
	}
	return medianOf(all), nil
}

// medianOf takes the median of wall times and of peak RSS separately (for
// an even count, the lower middle).
func medianOf(all []sample) sample {
	walls := make([]time.Duration, len(all))
	rss := make([]int64, len(all))
	for i, s := range all {
		walls[i], rss[i] = s.wall, s.rss
	}
	slices.Sort(walls)
	slices.Sort(rss)
	mid := (len(all) - 1) / 2
	return sample{wall: walls[mid], rss: rss[mid]}
}
