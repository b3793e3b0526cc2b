package exporter

import (
	"slices"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/semconv/v1.41.0/genaiconv"

	"github.com/llmprober/llmprober/probe"
)

// Label keys of the llmprober.* instruments.
const (
	labelTarget        = "target"
	labelOutcome       = "outcome"
	labelErrorType     = "error_type"
	labelReason        = "reason"
	labelState         = "state"
	labelPhase         = "phase"
	labelModel         = "model"
	labelAPI           = "api"
	labelStream        = "stream"
	labelServerAddress = "server_address"
)

// HTTP phases of llmprober.http.phase_duration.
const (
	phaseDNS       = "dns"
	phaseConnect   = "connect"
	phaseTLS       = "tls"
	phaseFirstByte = "first_byte"
)

// phases lists the HTTP phases, in order.
var phases = []string{phaseDNS, phaseConnect, phaseTLS, phaseFirstByte}

// errorTypeOther is error.type (and error_type) for an errored request whose
// record carries no error type.
var errorTypeOther = string(genaiconv.ErrorTypeOther)

// targetAttrs holds one target's precomputed measurement options, one per
// attribute set it records with, so recording allocates no attribute sets.
type targetAttrs struct {
	genAI        metric.MeasurementOption
	genAIBase    []attribute.KeyValue
	tokens       [2]metric.MeasurementOption // input, output
	target       metric.MeasurementOption
	info         metric.MeasurementOption
	phases       map[string]metric.MeasurementOption
	genAIErrors  map[probe.ErrorType]metric.MeasurementOption
	requests     map[requestKey]metric.MeasurementOption
	drops        map[probe.DropReason]metric.MeasurementOption
	states       map[probe.TargetState]metric.MeasurementOption
	targetKeyVal attribute.KeyValue
	// genAIRec and targetRec are genAI and target as the options of a
	// histogram's Record, targetAdd target as those of a counter's Add,
	// built once.
	genAIRec, targetRec []metric.RecordOption
	targetAdd           []metric.AddOption
}

// requestKey identifies one series of llmprober.requests.
type requestKey struct {
	outcome   probe.Outcome
	errorType probe.ErrorType
}

// opt returns the measurement option for the attributes kv. kv is copied
// because attribute.NewSet sorts its argument in place.
func opt(kv ...attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(slices.Clone(kv)...))
}

// newTargetAttrs precomputes every attribute set of t, including each known
// error type, drop reason, state and phase.
func newTargetAttrs(t Target) *targetAttrs {
	tk := attribute.String(labelTarget, t.Name)
	a := &targetAttrs{
		genAIBase:    genAIAttributes(t),
		target:       opt(tk),
		targetKeyVal: tk,
		info: opt(tk, attribute.String(labelModel, t.Model), attribute.String(labelAPI, t.API),
			attribute.String(labelStream, strconv.FormatBool(t.Stream)),
			attribute.String(labelServerAddress, t.ServerAddress)),
		phases:      map[string]metric.MeasurementOption{},
		genAIErrors: map[probe.ErrorType]metric.MeasurementOption{},
		requests:    map[requestKey]metric.MeasurementOption{},
		drops:       map[probe.DropReason]metric.MeasurementOption{},
		states:      map[probe.TargetState]metric.MeasurementOption{},
	}
	a.genAI = opt(a.genAIBase...)
	a.genAIRec, a.targetRec = []metric.RecordOption{a.genAI}, []metric.RecordOption{a.target}
	a.targetAdd = []metric.AddOption{a.target}
	a.tokens[0] = opt(append(a.genAIBase, semconv.GenAITokenTypeKey.String(string(genaiconv.TokenTypeInput)))...)
	a.tokens[1] = opt(append(a.genAIBase, semconv.GenAITokenTypeKey.String(string(genaiconv.TokenTypeOutput)))...)
	for _, p := range phases {
		a.phases[p] = opt(tk, attribute.String(labelPhase, p))
	}
	for _, e := range probe.ErrorTypes {
		a.genAIErrors[e] = a.genAIError(e)
	}
	for _, k := range initialRequestKeys() {
		a.requests[k] = a.request(k)
	}
	for _, r := range probe.DropReasons {
		a.drops[r] = opt(tk, attribute.String(labelReason, string(r)))
	}
	for _, s := range probe.TargetStates {
		a.states[s] = opt(tk, attribute.String(labelState, string(s)))
	}
	return a
}

// genAIAttributes returns the GenAI attributes common to every sample of t;
// server.address and server.port only when known. Besides the convention's
// attributes each sample carries target, so two targets probing one server
// and model keep separate series and dashboards select them like the
// llmprober.* metrics.
func genAIAttributes(t Target) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.String(labelTarget, t.Name),
		semconv.GenAIOperationNameKey.String(operationName(t.API)),
		semconv.GenAIProviderNameKey.String(t.Provider),
		semconv.GenAIRequestModelKey.String(t.Model),
	}
	if t.ServerAddress != "" {
		kv = append(kv, semconv.ServerAddressKey.String(t.ServerAddress))
		if t.ServerPort > 0 {
			kv = append(kv, semconv.ServerPortKey.Int(t.ServerPort))
		}
	}
	return slices.Clip(kv)
}

// initialRequestKeys lists the llmprober.requests series created at 0:
// successful, errored with every error type, incomplete with each of its
// error types.
func initialRequestKeys() []requestKey {
	keys := []requestKey{{outcome: probe.Successful}}
	for _, e := range probe.ErrorTypes {
		keys = append(keys, requestKey{probe.Errored, e})
	}
	for _, e := range probe.IncompleteErrorTypes {
		keys = append(keys, requestKey{probe.Incomplete, e})
	}
	return keys
}

// errorTypeValue is the label value of an error type; errorTypeOther when empty.
func errorTypeValue(e probe.ErrorType) string {
	if e == probe.ErrorNone {
		return errorTypeOther
	}
	return string(e)
}

// genAIError builds the GenAI attributes of an errored request.
func (a *targetAttrs) genAIError(e probe.ErrorType) metric.MeasurementOption {
	return opt(append(a.genAIBase, semconv.ErrorTypeKey.String(errorTypeValue(e)))...)
}

// request builds the llmprober.requests attributes of k.
func (a *targetAttrs) request(k requestKey) metric.MeasurementOption {
	oc := attribute.String(labelOutcome, string(k.outcome))
	if k.outcome == probe.Successful {
		return opt(a.targetKeyVal, oc)
	}
	return opt(a.targetKeyVal, oc, attribute.String(labelErrorType, errorTypeValue(k.errorType)))
}

// lookup returns m[k], or build(k) for a value outside the known enums.
func lookup[K comparable](m map[K]metric.MeasurementOption, k K, build func(K) metric.MeasurementOption) metric.MeasurementOption {
	if o, ok := m[k]; ok {
		return o
	}
	return build(k)
}

// genAIErrorOpt returns the GenAI attributes for an errored request of type e.
func (a *targetAttrs) genAIErrorOpt(e probe.ErrorType) metric.MeasurementOption {
	return lookup(a.genAIErrors, e, a.genAIError)
}

// requestOpt returns the llmprober.requests attributes of rec's outcome.
func (a *targetAttrs) requestOpt(rec *probe.Record) metric.MeasurementOption {
	k := requestKey{outcome: rec.Outcome}
	if rec.Outcome != probe.Successful {
		k.errorType = rec.ErrorType
	}
	return lookup(a.requests, k, a.request)
}

// dropOpt returns the llmprober.probes.dropped attributes of r.
func (a *targetAttrs) dropOpt(r probe.DropReason) metric.MeasurementOption {
	return lookup(a.drops, r, func(r probe.DropReason) metric.MeasurementOption {
		return opt(a.targetKeyVal, attribute.String(labelReason, string(r)))
	})
}
