package exporter

import "sync"

// registry is the set of targets that units join and leave while the
// process runs, by name, in the order they joined (a replaced entry keeps
// its place). It is safe for concurrent use; readers get copies.
type registry[T any] struct {
	mu     sync.RWMutex
	order  []string
	byName map[string]T
}

// newRegistry returns an empty registry.
func newRegistry[T any]() *registry[T] {
	return &registry[T]{byName: map[string]T{}}
}

// get returns the entry called name, ok false when there is none.
func (r *registry[T]) get(name string) (v T, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	v, ok = r.byName[name]
	return v, ok
}

// all returns every entry in order.
func (r *registry[T]) all() []T {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]T, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	return out
}

// len returns the number of entries.
func (r *registry[T]) len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// put adds v as name, or replaces the entry of that name in place; it
// returns the entry replaced.
func (r *registry[T]) put(name string, v T) (old T, replaced bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, replaced = r.byName[name]
	if !replaced {
		r.order = append(r.order, name)
	}
	r.byName[name] = v
	return old, replaced
}

// remove deletes the entry called name and returns it.
func (r *registry[T]) remove(name string) (old T, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old, ok = r.byName[name]
	if !ok {
		return old, false
	}
	delete(r.byName, name)
	for i, n := range r.order {
		if n == name {
			r.order = append(r.order[:i:i], r.order[i+1:]...)
			break
		}
	}
	return old, true
}
