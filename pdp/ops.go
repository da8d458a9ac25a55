package main

// The five things the protocol offers: decide, task put/delete, config write, status and
// bundle manifests. Nothing else: no policy API, no ad-hoc queries, no other data writes.

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/metrics"
	"github.com/open-policy-agent/opa/v1/plugins"
	"github.com/open-policy-agent/opa/v1/plugins/logs"
	"github.com/open-policy-agent/opa/v1/plugins/status"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/sdk"
	"github.com/open-policy-agent/opa/v1/server/types"
	"github.com/open-policy-agent/opa/v1/storage"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/lineage"
	"github.com/open-policy-agent/opa/v1/util"
)

// Decisions the host may ask for: the decision, and the budget rules (spend/decision, ...).
var decisionPath = regexp.MustCompile(`^opafence/(decision|budget(/[A-Za-z0-9_]+)+)$`)

type request struct {
	Op      string          `json:"op"`
	Path    string          `json:"path"`
	Key     string          `json:"key"`
	Input   json.RawMessage `json:"input"`
	Value   json.RawMessage `json:"value"`
	Metrics bool            `json:"metrics"`
	Explain string          `json:"explain"`
}

type answer struct {
	status int
	body   any // marshalled as the body; nil means no body
}

func failure(status int, code, message string) answer {
	return answer{status, map[string]string{"code": code, "message": message}}
}

type engine struct {
	opa   *sdk.OPA
	store storage.Store
	// The plugin manager under the SDK (sdk.Options.ManagerOpts hands it over): its compiler,
	// runtime and print hook are what sdk.Decision evaluates with. nil: every decision goes
	// through sdk.Decision.
	mgr *plugins.Manager
	// Prepared decision queries by path, dropped whenever the compiler changes (a bundle was
	// activated), as the SDK's own query cache is. gen counts those changes, so that a query
	// prepared against an older compiler is never stored.
	mu       sync.Mutex
	prepared map[string]*rego.PreparedEvalQuery
	gen      uint64
}

func newEngine(opa *sdk.OPA, store storage.Store, mgr *plugins.Manager) *engine {
	e := &engine{opa: opa, store: store, mgr: mgr, prepared: map[string]*rego.PreparedEvalQuery{}}
	if mgr != nil {
		mgr.RegisterCompilerTrigger(func(storage.Transaction) { e.forget() })
	}
	return e
}

func (e *engine) forget() {
	e.mu.Lock()
	e.prepared = map[string]*rego.PreparedEvalQuery{}
	e.gen++
	e.mu.Unlock()
}

func (e *engine) handle(ctx context.Context, payload []byte) answer {
	var req request
	if err := json.Unmarshal(payload, &req); err != nil {
		return failure(400, "invalid_parameter", "request is not JSON: "+err.Error())
	}
	switch req.Op {
	case "decide":
		return e.decide(ctx, req)
	case "task_put":
		return e.write(ctx, storage.Path{"tasks", req.Key}, req.Value, req.Key == "")
	case "task_delete":
		return e.remove(ctx, storage.Path{"tasks", req.Key}, req.Key == "")
	case "config_put":
		return e.write(ctx, storage.Path{"config"}, req.Value, false)
	case "status":
		return e.status()
	case "manifests":
		return e.manifests(ctx)
	}
	return failure(403, "forbidden", "the PDP does not offer "+req.Op)
}

// handleDecide is handle for a frame that must be a decision (serve runs it on a goroutine).
func (e *engine) handleDecide(ctx context.Context, payload []byte) answer {
	var req request
	if err := json.Unmarshal(payload, &req); err != nil {
		return failure(400, "invalid_parameter", "request is not JSON: "+err.Error())
	}
	if req.Op != "decide" {
		return failure(400, "invalid_parameter", "a request that starts as a decision must be one")
	}
	return e.decide(ctx, req)
}

func (e *engine) decide(ctx context.Context, req request) answer {
	if !decisionPath.MatchString(req.Path) {
		return failure(403, "forbidden", "not a decision the PDP offers: "+req.Path)
	}
	if e.mgr != nil && logs.Lookup(e.mgr) == nil {
		return e.decideDirect(ctx, req)
	}
	// Decision logs are on: sdk.Decision writes them (masking, labels, the ND builtin cache).
	var input any
	if len(req.Input) > 0 {
		if err := util.UnmarshalJSON(req.Input, &input); err != nil {
			return failure(400, "invalid_parameter", "input: "+err.Error())
		}
	}
	opts := sdk.DecisionOptions{Path: req.Path, Input: input, StrictBuiltinErrors: true, Now: time.Now()}
	var m metrics.Metrics
	if req.Metrics {
		m = metrics.New()
		opts.Metrics = m
	}
	var buf *topdown.BufferTracer
	if req.Explain != "" {
		buf = topdown.NewBufferTracer()
		opts.Tracer = buf
	}
	res, err := e.opa.Decision(ctx, opts)
	out := map[string]any{}
	if err != nil && !sdk.IsUndefinedErr(err) {
		return failure(500, "internal_error", err.Error())
	}
	if err == nil && res != nil {
		out["result"] = res.Result
	}
	if m != nil {
		out["metrics"] = m.All()
	}
	if buf != nil {
		trace, err := explanation(buf, req.Explain)
		if err != nil {
			return failure(500, "internal_error", err.Error())
		}
		out["explanation"] = trace
	}
	return answer{200, out}
}

func explanation(buf *topdown.BufferTracer, mode string) (types.TraceV1, error) {
	var events []*topdown.Event
	switch types.ExplainModeV1(mode) {
	case types.ExplainNotesV1:
		events = lineage.Notes(*buf)
	case types.ExplainFailsV1:
		events = lineage.Fails(*buf)
	case types.ExplainDebugV1:
		events = lineage.Debug(*buf)
	default:
		events = lineage.Full(*buf)
	}
	return types.NewTraceV1(events, true)
}

// query is the prepared query for a decision path, prepared once per compiler.
func (e *engine) query(ctx context.Context, path string) (*rego.PreparedEvalQuery, error) {
	e.mu.Lock()
	pq, gen := e.prepared[path], e.gen
	e.mu.Unlock()
	if pq != nil {
		return pq, nil
	}
	// sdk.Decision's query for a path (internal/ref.ParseDataPath).
	sp, ok := storage.ParsePath("/" + path)
	if !ok {
		return nil, errors.New("invalid path")
	}
	r := sp.Ref(ast.DefaultRootDocument)
	// What sdk.Decision prepares with (sdk/opa.go, evaluate), without its per-call extras.
	prepared, err := rego.New(
		rego.Query(r.String()),
		rego.Compiler(e.mgr.GetCompiler()),
		rego.Store(e.store),
		rego.PrintHook(e.mgr.PrintHook()),
		rego.StrictBuiltinErrors(true),
		rego.Runtime(e.mgr.Info),
	).PrepareForEval(ctx)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	if e.gen == gen {
		e.prepared[path] = &prepared
	}
	e.mu.Unlock()
	return &prepared, nil
}

// decideDirect is sdk.Decision's evaluation without what it does for decision logs (which are
// off): a prepared query, the input parsed straight into an ast.Value, one read transaction.
func (e *engine) decideDirect(ctx context.Context, req request) answer {
	var input ast.Value = ast.Null{} // sdk.Decision's input when none is given
	if len(req.Input) > 0 {
		v, err := parseValue(req.Input)
		if err != nil {
			return failure(400, "invalid_parameter", "input: "+err.Error())
		}
		input = v
	}
	pq, err := e.query(ctx, req.Path)
	if err != nil {
		return failure(500, "internal_error", err.Error())
	}
	opts := []rego.EvalOption{rego.EvalParsedInput(input), rego.EvalTime(time.Now())}
	var m metrics.Metrics
	if req.Metrics {
		m = metrics.New()
		opts = append(opts, rego.EvalMetrics(m))
	}
	var buf *topdown.BufferTracer
	if req.Explain != "" {
		buf = topdown.NewBufferTracer()
		opts = append(opts, rego.EvalQueryTracer(buf))
	}
	txn, err := e.store.NewTransaction(ctx)
	if err != nil {
		return failure(500, "internal_error", err.Error())
	}
	rs, err := pq.Eval(ctx, append(opts, rego.EvalTransaction(txn))...)
	e.store.Abort(ctx, txn)
	if err != nil {
		return failure(500, "internal_error", err.Error())
	}
	out := map[string]any{}
	if len(rs) > 0 && len(rs[0].Expressions) > 0 {
		out["result"] = rs[0].Expressions[0].Value
	}
	if m != nil {
		out["metrics"] = m.All()
	}
	if buf != nil {
		trace, err := explanation(buf, req.Explain)
		if err != nil {
			return failure(500, "internal_error", err.Error())
		}
		out["explanation"] = trace
	}
	return answer{200, out}
}

// write is OPA's PUT /v1/data/<path>: make the parent, then add (which replaces).
func (e *engine) write(ctx context.Context, path storage.Path, raw json.RawMessage, badKey bool) answer {
	if badKey {
		return failure(400, "invalid_parameter", "empty task key")
	}
	var value any
	if err := util.UnmarshalJSON(raw, &value); err != nil {
		return failure(400, "invalid_parameter", "value: "+err.Error())
	}
	err := storage.Txn(ctx, e.store, storage.WriteParams, func(txn storage.Transaction) error {
		if _, err := e.store.Read(ctx, txn, path); err != nil {
			if !storage.IsNotFound(err) {
				return err
			}
			if err := storage.MakeDir(ctx, e.store, txn, path[:len(path)-1]); err != nil {
				return err
			}
		}
		return e.store.Write(ctx, txn, storage.AddOp, path, value)
	})
	if err != nil {
		return failure(500, "internal_error", err.Error())
	}
	return answer{204, nil}
}

func (e *engine) remove(ctx context.Context, path storage.Path, badKey bool) answer {
	if badKey {
		return failure(400, "invalid_parameter", "empty task key")
	}
	err := storage.Txn(ctx, e.store, storage.WriteParams, func(txn storage.Transaction) error {
		if _, err := e.store.Read(ctx, txn, path); err != nil {
			return err
		}
		return e.store.Write(ctx, txn, storage.RemoveOp, path, nil)
	})
	if storage.IsNotFound(err) {
		return failure(404, "resource_not_found", "storage_not_found_error: "+path.String())
	}
	if err != nil {
		return failure(500, "internal_error", err.Error())
	}
	return answer{204, nil}
}

func (e *engine) status() answer {
	p, ok := e.opa.Plugin(status.Name).(*status.Plugin)
	if !ok || p == nil {
		return failure(500, "internal_error", "status plugin not enabled")
	}
	return answer{200, map[string]any{"result": p.Snapshot()}}
}

func (e *engine) manifests(ctx context.Context) answer {
	value, err := storage.ReadOne(ctx, e.store, storage.Path{"system", "bundles"})
	if storage.IsNotFound(err) {
		return answer{200, map[string]any{}}
	}
	if err != nil {
		return failure(500, "internal_error", err.Error())
	}
	return answer{200, map[string]any{"result": value}}
}

func (a answer) encode() ([]byte, error) {
	if a.body == nil {
		return nil, nil
	}
	bs, err := json.Marshal(a.body)
	if err != nil {
		return nil, errors.New("cannot encode the answer: " + err.Error())
	}
	return bs, nil
}
