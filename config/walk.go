package config

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"
)

// inlineKeyMsg rejects an API key written in the configuration. It never
// quotes the key.
const inlineKeyMsg = "inline API keys are not accepted; use auth.api_key_env or auth.api_key_file"

// Bounds on the walk, so that a document of nested aliases (a "billion
// laughs") cannot make it run for ever: how many nodes it visits, aliases
// expanded, and how many aliases it follows.
const (
	maxNodes   = 1 << 18
	maxAliases = 10000
)

var (
	configType       = reflect.TypeFor[Config]()
	targetType       = reflect.TypeFor[Target]()
	authType         = reflect.TypeFor[Auth]()
	durationType     = reflect.TypeFor[time.Duration]()
	distributionType = reflect.TypeFor[Distribution]()
	periodType       = reflect.TypeFor[Period]()
)

// walker checks a YAML document against the shape of Config before it is
// decoded: unknown and duplicate keys, inline API keys, wrong kinds of value,
// bare numbers for durations. It records the line of every key it accepts,
// and marks the paths whose values it rejects as broken. Problems are
// reported without quoting values, so a misplaced key is never echoed.
type walker struct {
	src      *source
	errs     Errors
	visited  int
	aliases  int
	tooLarge bool
	// undecodable is set when the document must not be decoded at all (too
	// large, or a merge cycle).
	undecodable bool
	// merging holds the mappings being merged, to catch a merge cycle.
	merging map[*yaml.Node]bool
}

// walkDocument checks doc and records its lines in src. decodable is false
// when the document must not be decoded (the problems say why).
func walkDocument(doc *yaml.Node, src *source) (errs Errors, decodable bool) {
	w := &walker{src: src, merging: map[*yaml.Node]bool{}}
	root := doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind == 0 {
		return nil, true
	}
	w.value(root, configType, "")
	return w.errs, !w.tooLarge && !w.undecodable
}

// fail records a problem with the value at path, whose node is n, and marks
// the path broken.
func (w *walker) fail(n *yaml.Node, path, format string, args ...any) {
	w.note(n, path, format, args...)
	w.src.broken[path] = true
}

// note records a problem at node n without marking path broken.
func (w *walker) note(n *yaml.Node, path, format string, args ...any) {
	w.errs = append(w.errs, &FieldError{File: w.src.file, Line: n.Line, Path: path, Msg: fmt.Sprintf(format, args...)})
}

// deref follows aliases and counts the visit; it returns nil once the
// document is too large.
func (w *walker) deref(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
		w.aliases++
	}
	w.visited++
	if w.tooLarge {
		return nil
	}
	if w.visited > maxNodes || w.aliases > maxAliases {
		w.tooLarge = true
		w.errs = append(w.errs, &FieldError{File: w.src.file,
			Msg: fmt.Sprintf("document is too large (more than %d values or %d aliases followed)", maxNodes, maxAliases)})
		return nil
	}
	return n
}

// value checks n as a value of type t.
func (w *walker) value(n *yaml.Node, t reflect.Type, path string) {
	n = w.deref(n)
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		if msg, rejected := nullRejected(path); n != nil && rejected {
			w.fail(n, path, "%s", msg)
		}
		return
	}
	switch {
	case t == durationType:
		w.duration(n, path)
		return
	case t == periodType:
		w.period(n, path)
		return
	case t == distributionType && n.Kind != yaml.MappingNode:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && !isWideInt(n)) {
			w.fail(n, path, "must be an integer or a mapping with mean, stdev, min and max")
			return
		}
		if w.intInRange(n, path) {
			w.src.fixed[path] = true
		}
		return
	case t == authType && n.Kind == yaml.ScalarNode:
		w.fail(n, path, inlineKeyMsg)
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		w.value(n, t.Elem(), path)
	case reflect.Struct:
		w.mapping(n, t, path, nil)
	case reflect.Slice:
		w.sequence(n, t.Elem(), path)
	case reflect.Map:
		w.stringMap(n, path)
	default:
		w.scalar(n, t.Kind(), path)
	}
}

// mapping checks n as the mapping of struct type t. A merge ("<<") brings
// in the keys of other mappings, except those in shadowed and those written
// in n itself, which replace them whole; merged keys are recorded with the
// line where they are written, unless a line is known already. shadowed is
// nil for a mapping that is not itself merged.
func (w *walker) mapping(n *yaml.Node, t reflect.Type, path string, shadowed map[string]bool) {
	if n.Kind != yaml.MappingNode && path == "" {
		w.fail(n, path, "the configuration must be a mapping of settings, such as \"targets:\"")
		return
	}
	if n.Kind != yaml.MappingNode {
		w.fail(n, path, "must be a mapping")
		return
	}
	fields := yamlFields(t)
	own := ownKeys(n, shadowed)
	seen := map[string]int{}
	var meant []string
	// dropped are the keys not to decode (duplicate, unknown, not plain).
	var dropped []int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case isMergeKey(k):
			w.merge(v, t, path, own)
			continue
		case k.Kind != yaml.ScalarNode:
			w.note(k, path, "keys must be plain names")
			dropped = append(dropped, i)
			continue
		case shadowed[k.Value]:
			continue
		}
		child := joinPath(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			w.fail(k, child, "duplicate key (first at line %d)", first)
			dropped = append(dropped, i)
			continue
		}
		seen[k.Value] = k.Line
		f, ok := fields[k.Value]
		if !ok {
			if s := w.unknown(k, t, path, fields); s != "" {
				meant = append(meant, s)
			}
			dropped = append(dropped, i)
			continue
		}
		if shadowed != nil {
			w.src.setLine(child, k.Line)
		} else {
			w.src.lines[child] = k.Line
		}
		w.value(v, f.Type, child)
	}
	w.markMeant(path, meant, shadowed)
	dropPairs(n, dropped)
}

// dropPairs removes from mapping n the keys at the given indexes of its
// Content, in increasing order, with their values, so that the rest of the
// mapping can be decoded: the decoder rejects a mapping with a duplicate key
// whole, and spends time quadratic in the number of keys on each mapping.
func dropPairs(n *yaml.Node, keys []int) {
	if len(keys) == 0 {
		return
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		if len(keys) > 0 && keys[0] == i {
			keys = keys[1:]
			continue
		}
		kept = append(kept, n.Content[i], n.Content[i+1])
	}
	n.Content = kept
}

// markMeant marks broken the fields of the mapping at path that unknown keys
// were probably meant to be, when they are absent: "model: required" after
// "unknown field modl (did you mean model?)" would say the same again.
func (w *walker) markMeant(path string, meant []string, shadowed map[string]bool) {
	for _, key := range meant {
		p := joinPath(path, key)
		if _, written := w.src.lines[p]; !written && !shadowed[key] {
			w.src.broken[p] = true
		}
	}
}

// ownKeys returns the keys written in mapping n, plus those of shadowed.
func ownKeys(n *yaml.Node, shadowed map[string]bool) map[string]bool {
	own := map[string]bool{}
	for k := range shadowed {
		own[k] = true
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i]; k.Kind == yaml.ScalarNode && !isMergeKey(k) {
			own[k.Value] = true
		}
	}
	return own
}

// merge checks the value of a merge key: a mapping or a list of mappings,
// whose keys in shadowed are ignored.
func (w *walker) merge(v *yaml.Node, t reflect.Type, path string, shadowed map[string]bool) {
	v = w.deref(v)
	if v == nil {
		return
	}
	if v.Kind != yaml.SequenceNode {
		w.mergeOne(v, t, path, shadowed)
		return
	}
	for _, item := range v.Content {
		if item = w.deref(item); item != nil {
			w.mergeOne(item, t, path, shadowed)
		}
	}
}

// mergeOne checks one merged mapping m, unless it is already being merged.
func (w *walker) mergeOne(m *yaml.Node, t reflect.Type, path string, shadowed map[string]bool) {
	if w.merging[m] {
		w.note(m, path, "a merge (<<) includes the mapping that contains it")
		w.undecodable = true
		return
	}
	w.merging[m] = true
	w.mapping(m, t, path, shadowed)
	delete(w.merging, m)
}

// unknown reports key k, which struct type t at parent does not have, and
// returns the field it was probably meant to be, or "". The problem is
// reported at parent's path plus the key, unless quote hides the key:
// then at parent's path alone.
func (w *walker) unknown(k *yaml.Node, t reflect.Type, parent string, fields map[string]reflect.StructField) string {
	path := joinPath(parent, k.Value)
	if k.Value == "api_key" && (t == targetType || t == authType) {
		w.note(k, path, inlineKeyMsg)
		return ""
	}
	if quote(k.Value) != strconv.Quote(k.Value) {
		w.note(k, parent, "unknown field %s", quote(k.Value))
		return ""
	}
	if s := closest(k.Value, fields); s != "" {
		w.note(k, path, "unknown field %s (did you mean %q?)", quote(k.Value), s)
		return s
	}
	w.note(k, path, "unknown field %s", quote(k.Value))
	return ""
}

// sequence checks n as a list of elem.
func (w *walker) sequence(n *yaml.Node, elem reflect.Type, path string) {
	if n.Kind != yaml.SequenceNode {
		w.fail(n, path, "must be a list")
		return
	}
	for i, item := range n.Content {
		child := path + "[" + strconv.Itoa(i) + "]"
		w.src.setLine(child, item.Line)
		w.value(item, elem, child)
	}
}

// stringMap checks n as a mapping of names to single values (headers).
func (w *walker) stringMap(n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		w.fail(n, path, "must be a mapping")
		return
	}
	if len(n.Content)/2 > LimitHeaders {
		// Not decoded: the decoder's time grows with the square of the
		// number of keys.
		w.fail(n, path, "must have at most %d entries", LimitHeaders)
		n.Content = nil
		return
	}
	seen := map[string]int{}
	var dropped []int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode || isMergeKey(k) {
			w.note(k, path, "keys must be plain names")
			dropped = append(dropped, i)
			continue
		}
		child := joinPath(path, k.Value)
		if first, dup := seen[k.Value]; dup {
			w.fail(k, child, "duplicate key (first at line %d)", first)
			dropped = append(dropped, i)
			continue
		}
		seen[k.Value] = k.Line
		w.src.setLine(child, k.Line)
		w.value(v, reflect.TypeFor[string](), child)
	}
	dropPairs(n, dropped)
}

// scalar checks n as a single value of the given kind.
func (w *walker) scalar(n *yaml.Node, kind reflect.Kind, path string) {
	if n.Kind != yaml.ScalarNode {
		w.fail(n, path, "must be a single value, not a mapping or a list")
		return
	}
	tag := n.ShortTag()
	switch kind {
	case reflect.Bool:
		if tag != "!!bool" {
			w.fail(n, path, "must be true or false")
		}
	case reflect.Int, reflect.Int64:
		if tag != "!!int" && !isWideInt(n) {
			w.fail(n, path, "must be an integer")
			return
		}
		w.intInRange(n, path)
	case reflect.Float64:
		if tag != "!!int" && tag != "!!float" {
			w.fail(n, path, "must be a number")
		}
	}
}

// duration checks n as a Go duration string; a bare number has no unit and
// is rejected.
func (w *walker) duration(n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		w.fail(n, path, `must be a duration such as "30s"`)
		return
	}
	switch n.ShortTag() {
	case "!!int", "!!float":
		w.fail(n, path, `must be a duration with a unit, such as "30s" or "1m30s", not a bare number`)
	case "!!str":
		_, err := time.ParseDuration(n.Value)
		switch {
		case err == nil:
		case !durationSyntax.MatchString(n.Value):
			w.fail(n, path, `invalid duration %s: use a unit, such as "30s" or "1m30s"`, quote(n.Value))
		case strings.HasPrefix(n.Value, "-"):
			w.fail(n, path, "must be >= 0")
		default:
			w.fail(n, path, "is too large (at most %v)", limitOf(path, durationLimits, time.Duration(math.MaxInt64)))
		}
	default:
		w.fail(n, path, `must be a duration such as "30s"`)
	}
}

// durationSyntax matches what time.ParseDuration accepts, whatever the
// size: a duration that matches but does not parse is out of range.
var durationSyntax = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// durationLimits are the largest values of the bounded durations, by key,
// named in the message for a duration that does not fit in 64 bits.
var durationLimits = map[string]time.Duration{
	"rampup": LimitRampup, "think_time": LimitThinkTime, "error_backoff": LimitErrorBackoff,
}

// intLimits are the largest values of the bounded integers, by key, named
// in the message for an integer that does not fit in 64 bits.
var intLimits = map[string]int64{
	"streams": LimitStreams, "max_concurrency": LimitConcurrency, "max_queue": LimitQueue, "turns": LimitTurns,
	"prompt_tokens": LimitTokens, "output_tokens": LimitTokens, "min": LimitTokens, "max": LimitTokens,
}

// limitOf returns the limit of the setting at path from limits, by its last
// key, or def.
func limitOf[T any](path string, limits map[string]T, def T) T {
	if v, ok := limits[path[strings.LastIndexByte(path, '.')+1:]]; ok {
		return v
	}
	return def
}

// wideInt matches a plain decimal integer, which YAML resolves as a float
// when it does not fit in 64 bits.
var wideInt = regexp.MustCompile(`^[-+]?[0-9][0-9_]*$`)

// isWideInt reports whether n is an integer too wide to be resolved as one.
func isWideInt(n *yaml.Node) bool {
	return n.ShortTag() == "!!float" && wideInt.MatchString(n.Value)
}

// intInRange reports whether the integer n fits in an int64, and records a
// problem naming the setting's bound when it does not.
func (w *walker) intInRange(n *yaml.Node, path string) bool {
	var v int64
	if n.ShortTag() == "!!int" && n.Decode(&v) == nil {
		return true
	}
	if strings.HasPrefix(n.Value, "-") {
		w.fail(n, path, "is too small: must be at least %d", int64(math.MinInt64))
	} else {
		w.fail(n, path, "is too large: must be at most %d", limitOf(path, intLimits, int64(math.MaxInt64)))
	}
	return false
}

// isMergeKey reports whether k is the YAML merge key "<<".
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// fieldCache holds yamlFields' results by type.
var fieldCache sync.Map // reflect.Type → map[string]reflect.StructField

// yamlFields maps the YAML keys of struct type t to its fields. The map is
// shared: do not modify it.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.StructField)
	}
	fields := make(map[string]reflect.StructField, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		fields[name] = f
	}
	fieldCache.Store(t, fields)
	return fields
}
