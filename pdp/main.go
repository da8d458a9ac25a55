// opafence-pdp: opafence's local policy decision point, OPA without HTTP.
//
// Built on the pinned OPA version's own SDK (same evaluator, bundles and signature checks,
// decision logs and status from the standard OPA config file), started by the opafence plugin
// as its child and spoken to over stdin/stdout in framed, authenticated requests (frame.go).
// The per-start HMAC key arrives on the descriptor named by --key-fd, read once and closed.
// EOF on stdin means the host is gone: the PDP stops.
//
//	opafence-pdp version
//	opafence-pdp run --config-file FILE --key-fd N
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/sdk"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/version"
)

// ProtocolVersion changes whenever the frames or the operations change.
const ProtocolVersion = "2"

const prSetDumpable = 4

func main() {
	// First, before any secret is in memory: no core dumps, no ptrace by the same user, and
	// /proc/<pid>/mem, environ and fd/ owned by root.
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); errno != 0 {
		fmt.Fprintln(os.Stderr, "opafence-pdp: prctl(PR_SET_DUMPABLE, 0) failed:", errno)
		os.Exit(2)
	}
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "version":
		fmt.Printf("Version: %s\nProtocol: %s\n", version.Version, ProtocolVersion)
	case "run":
		os.Exit(run(os.Args[2:]))
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: opafence-pdp version | run --config-file FILE --key-fd N")
	os.Exit(2)
}

func readKey(fd int) ([]byte, error) {
	f := os.NewFile(uintptr(fd), "key")
	if f == nil {
		return nil, fmt.Errorf("descriptor %d is not open", fd)
	}
	defer f.Close()
	key, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return nil, err
	}
	if len(key) < minKeyBytes {
		return nil, fmt.Errorf("the key has %d bytes, at least %d are needed", len(key), minKeyBytes)
	}
	return key, nil
}

func run(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	configFile := fs.String("config-file", "", "OPA configuration file")
	keyFd := fs.Int("key-fd", -1, "descriptor holding the HMAC key (read once, then closed)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	key, err := readKey(*keyFd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "opafence-pdp: cannot read the key:", err)
		return 2
	}
	config, err := os.Open(*configFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "opafence-pdp:", err)
		return 2
	}
	defer config.Close()

	logger := logging.New() // to stderr, which the host sends to its log file
	logger.SetLevel(logging.Error)
	ctx := context.Background()
	// Every value written comes from a JSON decoder (ops.go write), so the store need not
	// round-trip it through JSON again.
	store := inmem.NewWithOpts(inmem.OptRoundTripOnWrite(false))
	var mgr *plugins.Manager
	// Ready is given so that New does not block on bundles: the host waits for the opafence
	// bundle through status, and a required org bundle that never loads leaves the PDP up
	// (every decision a block) rather than hanging its start, as with `opa run --server`.
	opa, err := sdk.New(ctx, sdk.Options{
		ID:            "opafence-pdp",
		Config:        config,
		Logger:        logger,
		ConsoleLogger: logger,
		Store:         store,
		Ready:         make(chan struct{}),
		// The manager's compiler and runtime are what decisions evaluate with (ops.go).
		ManagerOpts: []func(*plugins.Manager){func(m *plugins.Manager) { mgr = m }},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "opafence-pdp: cannot start OPA:", err)
		return 2
	}
	e := newEngine(opa, store, mgr)
	code := serve(ctx, e, key, bufio.NewReaderSize(os.Stdin, 1<<16), os.Stdout)
	stopCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	opa.Stop(stopCtx) // flushes decision logs
	return code
}

// workers is how many decisions may be evaluated at once: each worker reads the next frame
// (one at a time, in order), then decides it on its own goroutine while another worker reads.
const workers = 8

var decidePrefix = []byte(`{"op":"decide"`)

// server is the request stream: frames are read one at a time under rmu, in seq order.
type server struct {
	e       *engine
	key     []byte
	in      io.Reader
	out     io.Writer
	rmu     sync.Mutex
	seq     uint64 // the last seq read; under rmu
	stopped bool   // under rmu
	wmu     sync.Mutex
	broken  atomic.Bool
}

// serve reads requests in order until EOF (the host is gone: 0) or a bad frame (3). Decisions
// are evaluated by several workers at once and answered as they finish (each answer carries
// its request's seq). The worker that read a decision evaluates it itself (no hand-over to
// another goroutine on the way) while the next worker reads; every other operation is done
// before the next frame is read, so a decision sent after a write sees it.
func serve(ctx context.Context, e *engine, key []byte, in io.Reader, out io.Writer) int {
	s := &server{e: e, key: key, in: in, out: out}
	exit := make(chan int, workers)
	var running sync.WaitGroup
	for range workers {
		running.Add(1)
		go func() {
			defer running.Done()
			if code, done := s.work(ctx); done {
				exit <- code
			}
		}()
	}
	code := <-exit
	if code == 0 {
		running.Wait() // the decisions already read are answered
	}
	return code
}

// work serves frames until the stream ends; (exit code, true) when this worker ended it.
func (s *server) work(ctx context.Context) (int, bool) {
	for {
		s.rmu.Lock()
		if s.stopped {
			s.rmu.Unlock()
			return 0, false
		}
		s.seq++
		seq := s.seq
		payload, err := readFrame(s.in, s.key, seq)
		if err != nil {
			s.stopped = true
			s.rmu.Unlock()
			if errors.Is(err, io.EOF) {
				return 0, true
			}
			fmt.Fprintln(os.Stderr, "opafence-pdp: refused:", err)
			return 3, true
		}
		if !bytes.HasPrefix(payload, decidePrefix) {
			s.send(seq, s.e.handle(ctx, payload))
			s.rmu.Unlock()
		} else {
			s.rmu.Unlock()
			s.send(seq, s.e.handleDecide(ctx, payload))
		}
		if s.broken.Load() {
			s.rmu.Lock()
			s.stopped = true
			s.rmu.Unlock()
			return 4, true
		}
	}
}

func (s *server) send(seq uint64, a answer) {
	body, err := a.encode()
	if err != nil {
		a = failure(500, "internal_error", err.Error())
		body, _ = a.encode()
	}
	frame := encodeAnswer(s.key, seq, a.status, body)
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.broken.Load() {
		return
	}
	if _, err := s.out.Write(frame); err != nil {
		fmt.Fprintln(os.Stderr, "opafence-pdp: cannot answer:", err)
		s.broken.Store(true)
	}
}
