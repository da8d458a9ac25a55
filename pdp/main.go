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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/sdk"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/open-policy-agent/opa/v1/version"
)

// ProtocolVersion changes whenever the frames or the operations change.
const ProtocolVersion = "1"

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
	store := inmem.New()
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
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "opafence-pdp: cannot start OPA:", err)
		return 2
	}
	e := &engine{opa: opa, store: store}
	code := serve(ctx, e, key, bufio.NewReaderSize(os.Stdin, 1<<16), os.Stdout)
	stopCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	opa.Stop(stopCtx) // flushes decision logs
	return code
}

// serve answers requests in order until EOF (the host is gone: 0) or a bad frame (3).
func serve(ctx context.Context, e *engine, key []byte, in io.Reader, out io.Writer) int {
	for seq := uint64(1); ; seq++ {
		payload, err := readFrame(in, key, seq)
		if errors.Is(err, io.EOF) {
			return 0
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "opafence-pdp: refused:", err)
			return 3
		}
		a := e.handle(ctx, payload)
		body, err := a.encode()
		if err != nil {
			a = failure(500, "internal_error", err.Error())
			body, _ = a.encode()
		}
		if _, err := out.Write(encodeAnswer(key, seq, a.status, body)); err != nil {
			fmt.Fprintln(os.Stderr, "opafence-pdp: cannot answer:", err)
			return 4
		}
	}
}
