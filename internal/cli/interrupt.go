package cli

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// A build catches SIGINT (Ctrl-C) and SIGTERM (how CI cancels a job) so
// that it never leaves a half-written tree or its stage directory behind.
// While it compiles, it stops at once: nothing is written yet. While it
// stages files, write.Tree stops and removes the stage: the tree is as it
// was. Once the renames have begun, the signal waits until they and the
// prune are done (milliseconds): the tree is the new one. Either way the
// build then exits 128 plus the signal's number, ExitInterrupted or
// ExitTerminated, as a shell reports a process a signal killed; it exits
// rather than die by the signal so that it can say what it left. Signals
// after the first are caught and ignored: a second Ctrl-C does not break
// the promise. SIGKILL cannot be caught: the next build removes the stage
// such a build leaves (see compiler/write/stage.go).
type interrupts struct {
	c    chan os.Signal
	done chan struct{} // closed at the first signal
	sig  os.Signal     // the first signal, once done is closed
}

func catchInterrupts() *interrupts {
	i := &interrupts{c: make(chan os.Signal, 1), done: make(chan struct{})}
	sigs := []os.Signal{syscall.SIGTERM}
	// A build started with SIGINT ignored (in the background of a
	// script) keeps ignoring it: Notify would undo that.
	if !signal.Ignored(os.Interrupt) {
		sigs = append(sigs, os.Interrupt)
	}
	signal.Notify(i.c, sigs...)
	go func() {
		if s, ok := <-i.c; ok {
			i.sig = s
			close(i.done)
		}
	}()
	return i
}

// stop stops catching: from then on a signal does what it did before.
func (i *interrupts) stop() {
	signal.Stop(i.c)
	close(i.c) // Stop guarantees nothing more is sent
}

// caught reports whether a signal has come.
func (i *interrupts) caught() bool {
	select {
	case <-i.done:
		return true
	default:
		return false
	}
}

// exit is the error an interrupted build exits with, saying what it left.
func (i *interrupts) exit(left string, args ...any) error {
	code, name := ExitTerminated, "SIGTERM"
	if i.sig == os.Interrupt {
		code, name = ExitInterrupted, "SIGINT"
	}
	return &exitError{code: code, err: fmt.Errorf("gpufleet build: interrupted by %s; %s", name, fmt.Sprintf(left, args...))}
}
