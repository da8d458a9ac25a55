package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/open-policy-agent/opa/v1/logging"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/plugins/status"
	"github.com/open-policy-agent/opa/v1/sdk"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
)

// stageBundle copies our Rego (../rego/opafence, without tests) into a bundle directory, as
// the host's rego_files.stage_bundle does.
func stageBundle(t testing.TB) string {
	t.Helper()
	src := filepath.Join("..", "rego")
	dest := t.TempDir()
	err := filepath.WalkDir(filepath.Join(src, "opafence"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if !(strings.HasSuffix(name, ".rego") && !strings.HasSuffix(name, "_test.rego")) && name != "data.json" {
			return nil
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.MkdirAll(filepath.Join(dest, filepath.Dir(rel)), 0o700); err != nil {
			return err
		}
		bs, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dest, rel), bs, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
	manifest := `{"roots":["opafence"],"revision":"test"}`
	if err := os.WriteFile(filepath.Join(dest, ".manifest"), []byte(manifest), 0o600); err != nil {
		t.Fatal(err)
	}
	return dest
}

// startEngine is run() without the pipe: the SDK on our bundle, ready for decisions.
func startEngine(t testing.TB) *engine {
	t.Helper()
	abs, err := filepath.Abs(stageBundle(t))
	if err != nil {
		t.Fatal(err)
	}
	config := fmt.Sprintf(`{"bundles":{"opafence":{"resource":"file://%s","persist":false}},"status":{"prometheus":true}}`, abs)
	logger := logging.New()
	logger.SetLevel(logging.Error)
	store := inmem.NewWithOpts(inmem.OptRoundTripOnWrite(false), inmem.OptReturnASTValuesOnRead(os.Getenv("PDP_BENCH_STORE") == "ast"))
	var mgr *plugins.Manager
	ready := make(chan struct{})
	opa, err := sdk.New(context.Background(), sdk.Options{
		ID: "test", Config: strings.NewReader(config), Logger: logger, ConsoleLogger: logger,
		Store: store, Ready: ready,
		ManagerOpts: []func(*plugins.Manager){func(m *plugins.Manager) { mgr = m }},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { opa.Stop(context.Background()) })
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatal("the bundle did not load")
	}
	if mgr == nil {
		t.Fatal("the SDK did not hand over its manager")
	}
	if p, ok := opa.Plugin(status.Name).(*status.Plugin); !ok || p == nil {
		t.Fatal("no status plugin")
	}
	return newEngine(opa, store, mgr)
}

func call(t testing.TB, e *engine, frame string) answer {
	t.Helper()
	if strings.HasPrefix(frame, `{"op":"decide"`) {
		return e.handleDecide(context.Background(), []byte(frame))
	}
	return e.handle(context.Background(), []byte(frame))
}

func body(t testing.TB, a answer) string {
	t.Helper()
	bs, err := a.encode()
	if err != nil {
		t.Fatal(err)
	}
	return string(bs)
}

var sampleInputs = []string{
	`{}`,
	`{"task":"t1","call":{"tool":"read_file","args":{"path":"/ws/a.txt"},"id":"c"},"host":{"auto_approve":false,"workspace":["/ws"],"cwd":"/ws"}}`,
	`{"task":"t1","call":{"tool":"terminal","args":{"command":"rm -rf /"},"id":"c"},"host":{"auto_approve":false,"workspace":["/ws"],"cwd":"/ws"}}`,
	`{"task":"nope","call":{"tool":"mystery","args":{"x":[1,2.5,"\u00e9"]},"id":"c"}}`,
	`"not an object"`,
}

// The direct path decides exactly what sdk.Decision decides, before and after writes.
func TestDirectDecisionsEqualTheSDKs(t *testing.T) {
	e := startEngine(t)
	viaSDK := &engine{opa: e.opa, store: e.store} // no manager: every decision through sdk.Decision
	compare := func(stage string) {
		for _, in := range sampleInputs {
			frame := `{"op":"decide","path":"opafence/decision","input":` + in + `}`
			got, want := call(t, e, frame), call(t, viaSDK, frame)
			if got.status != want.status || body(t, got) != body(t, want) {
				t.Fatalf("%s, input %s:\n direct %d %s\n sdk    %d %s", stage, in, got.status, body(t, got), want.status, body(t, want))
			}
		}
		// No input at all is input null for both.
		frame := `{"op":"decide","path":"opafence/decision"}`
		if got, want := body(t, call(t, e, frame)), body(t, call(t, viaSDK, frame)); got != want {
			t.Fatalf("%s, no input: direct %s, sdk %s", stage, got, want)
		}
	}
	compare("no data")
	if a := call(t, e, `{"op":"config_put","value":{"schema_version":1,"mode":"strict"}}`); a.status != 204 {
		t.Fatalf("config_put: %d %s", a.status, body(t, a))
	}
	if a := call(t, e, `{"op":"task_put","key":"t1","value":{"task":"t1","grants":[],"prohibitions":[]}}`); a.status != 204 {
		t.Fatalf("task_put: %d %s", a.status, body(t, a))
	}
	compare("config and a task")
	// Undefined and refused paths answer alike too.
	for _, frame := range []string{
		`{"op":"decide","path":"opafence/budget/nothing_here","input":{}}`,
		`{"op":"decide","path":"system/authz","input":{}}`,
		`{"op":"decide","path":"opafence/decision","input":{"a":}}`,
	} {
		got, want := call(t, e, frame), call(t, viaSDK, frame)
		if got.status != want.status || (got.status == 200 && body(t, got) != body(t, want)) {
			t.Fatalf("%s: direct %d %s, sdk %d %s", frame, got.status, body(t, got), want.status, body(t, want))
		}
	}
	// A frame that starts like a decision but is another operation is not done on the side.
	if a := call(t, e, `{"op":"decide","op":"task_delete","key":"t1"}`); a.status != 400 {
		t.Fatalf("a disguised write: %d %s", a.status, body(t, a))
	}
}

// Decisions on several goroutines while tasks are written: each answer is the one for its input.
func TestConcurrentDecisionsAndWrites(t *testing.T) {
	e := startEngine(t)
	want := map[string]string{}
	for _, in := range sampleInputs {
		frame := `{"op":"decide","path":"opafence/decision","input":` + in + `}`
		want[frame] = body(t, call(t, e, frame))
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				frame := `{"op":"decide","path":"opafence/decision","input":` + sampleInputs[(g+i)%len(sampleInputs)] + `}`
				if got := body(t, call(t, e, frame)); got != want[frame] {
					errs <- got
					return
				}
			}
		}()
	}
	for i := range 100 {
		call(t, e, fmt.Sprintf(`{"op":"task_put","key":"live-%d","value":{"task":"live-%d"}}`, i, i))
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Fatalf("a concurrent decision differed: %s", got)
	}
}

// BenchmarkDecide evaluates the inputs in $PDP_BENCH_INPUTS (one JSON document a line) after
// the writes in $PDP_BENCH_DATA (one request frame a line); for profiling the PDP's decision
// path (`go test -run x -bench Decide -cpuprofile cpu.out`). Without them it is skipped.
func BenchmarkDecide(b *testing.B) {
	inputs, data := os.Getenv("PDP_BENCH_INPUTS"), os.Getenv("PDP_BENCH_DATA")
	if inputs == "" || data == "" {
		b.Skip("PDP_BENCH_INPUTS and PDP_BENCH_DATA are not set")
	}
	e := startEngine(b)
	for _, frame := range lines(b, data) {
		if a := call(b, e, frame); a.status >= 300 {
			b.Fatalf("%.80s: %d %s", frame, a.status, body(b, a))
		}
	}
	var frames [][]byte
	for _, in := range lines(b, inputs) {
		frames = append(frames, []byte(`{"op":"decide","path":"opafence/decision","input":`+in+`}`))
	}
	via := os.Getenv("PDP_BENCH_VIA") // "sdk": through sdk.Decision
	if via == "sdk" {
		e = &engine{opa: e.opa, store: e.store}
	}
	ctx := context.Background()
	run := func(b *testing.B, frames [][]byte) {
		// CPU time (user + system) per decision beside the wall time: the machine is shared.
		var before, after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
		defer func() {
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
			cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}()
		for i := 0; i < b.N; i++ {
			a := e.handleDecide(ctx, frames[i%len(frames)])
			if a.status != 200 {
				b.Fatalf("%d %s", a.status, body(b, a))
			}
			if _, err := a.encode(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("mixed", func(b *testing.B) { run(b, frames) })
	if os.Getenv("PDP_BENCH_EACH") != "" {
		for i, f := range frames {
			b.Run(fmt.Sprintf("input%02d", i), func(b *testing.B) { run(b, [][]byte{f}) })
		}
	}
}

func lines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			out = append(out, string(line))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
