package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// The one signal handler. On Ctrl-C (SIGINT) or SIGTERM, handleInterrupts' goroutine cancels interruptContext (the
// download stops and removes its temporary file), waits for a write in progress to finish (uninterrupted), says
// what the command kept and what it did not write (keptOnInterrupt), and exits 128 + the signal's number (130 for
// Ctrl-C). A second signal exits at once. Training cannot be cancelled mid-step, so the process does not wait for
// it: what a step was measuring is lost, what was written before it is kept.

var interrupt struct {
	sync.Mutex // held while a command writes what an interrupt must not cut (uninterrupted)
	ctx        context.Context
	cancel     context.CancelFunc
	sig        atomic.Value // the os.Signal received, set before ctx is cancelled
	kept, lost string       // in words, for the message
	once       sync.Once
}

func init() { interrupt.ctx, interrupt.cancel = context.WithCancel(context.Background()) }

// interruptContext is cancelled when the process receives SIGINT or SIGTERM (never in tests that call commands
// directly, where no handler is installed).
func interruptContext() context.Context { return interrupt.ctx }

// handleInterrupts installs the handler; main calls it once, before running a command.
func handleInterrupts() {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		sig := <-ch
		go func() { // a second signal: no more waiting
			<-ch
			os.Exit(exitCodeOf(sig))
		}()
		interrupt.sig.Store(sig)
		interrupt.cancel()
		interrupt.Lock() // a results file being written is finished first; never unlocked: the process exits
		exitInterruptedLocked()
	}()
}

// keptOnInterrupt sets what an interrupt's message says: what the command has written so far and what it has not.
func keptOnInterrupt(kept, lost string) {
	interrupt.Lock()
	defer interrupt.Unlock()
	interrupt.kept, interrupt.lost = kept, lost
}

// uninterrupted runs write with interrupts held off: a signal during it takes effect when it returns, so a file
// is never cut short and the message describes what write left. write returns what is kept and lost from then on.
func uninterrupted(write func() (kept, lost string, err error)) error {
	interrupt.Lock()
	defer interrupt.Unlock()
	kept, lost, err := write()
	if err == nil {
		interrupt.kept, interrupt.lost = kept, lost
	}
	return err
}

// exitIfInterrupted exits with the interrupt's message when a signal arrived (the command returned because of it,
// e.g. a cancelled download), and returns otherwise.
func exitIfInterrupted() {
	if interrupt.ctx.Err() == nil {
		return
	}
	interrupt.Lock() // the handler may hold it (and be exiting): then this waits for the exit
	exitInterruptedLocked()
}

// exitInterruptedLocked prints the message and exits; interrupt's lock is held.
func exitInterruptedLocked() {
	sig, _ := interrupt.sig.Load().(os.Signal)
	interrupt.once.Do(func() {
		msg := fmt.Sprintf("trainopt: interrupted (%v)", sig)
		kept := interrupt.kept
		if kept == "" {
			kept = "nothing: no file was written yet"
		}
		msg += "; kept: " + kept
		if interrupt.lost != "" {
			msg += "; not written: " + interrupt.lost
		}
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(exitCodeOf(sig))
	})
	select {} // another goroutine is exiting
}

func exitCodeOf(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitInterrupted
}
