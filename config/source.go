package config

import "strings"

// source records where a Config's settings came from, so that problems can
// name a file and line, or the environment variable or flag that set them.
// A nil *source (a Config built in code) knows nothing and names YAML paths.
type source struct {
	// file is the configuration file; empty for a Config from the environment.
	file string
	// lines maps a YAML path to the line of its key; a path present here was
	// written in the file.
	lines map[string]int
	// labels maps a path to the name shown instead of it (an environment
	// variable or a flag); it also applies to the path's descendants.
	labels map[string]string
	// set holds paths given outside the file (environment or flag).
	set map[string]bool
	// broken holds paths whose value has a structural problem (wrong type,
	// duplicate key, …) and was not decoded, and absent fields that an
	// unknown key was probably meant to be; a problem found later at such a
	// path or below it is a consequence, and is not reported.
	broken map[string]bool
	// fixed holds the paths of distributions given as a single number.
	fixed map[string]bool
	// env reports that the targets were defined by environment variables.
	env bool
}

// newSource returns an empty source for file.
func newSource(file string) *source {
	return &source{file: file, lines: map[string]int{}, labels: map[string]string{}, set: map[string]bool{},
		broken: map[string]bool{}, fixed: map[string]bool{}}
}

// isBroken reports whether path or one of its ancestors is broken.
func (s *source) isBroken(path string) bool {
	if s == nil {
		return false
	}
	for p := path; ; p = parentPath(p) {
		if s.broken[p] {
			return true
		}
		if p == "" {
			return false
		}
	}
}

// isFixed reports whether the distribution at path was given as a single
// number.
func (s *source) isFixed(path string) bool {
	return s != nil && s.fixed[path]
}

// fromEnv reports whether the targets were defined by environment variables.
func (s *source) fromEnv() bool {
	return s != nil && s.env
}

// isSet reports whether the setting at path was given explicitly, so that an
// explicit zero is validated instead of replaced by the default.
func (s *source) isSet(path string) bool {
	if s == nil {
		return false
	}
	_, inFile := s.lines[path]
	return inFile || s.set[path]
}

// line returns the line of path, or 0 when unknown.
func (s *source) line(path string) int {
	if s == nil {
		return 0
	}
	return s.lines[path]
}

// setLine records the line of path unless one is already known.
func (s *source) setLine(path string, line int) {
	if _, ok := s.lines[path]; !ok {
		s.lines[path] = line
	}
}

// label records that path was set by the environment variable or flag name.
func (s *source) label(path, name string) {
	s.labels[path] = name
	s.set[path] = true
	delete(s.broken, path)
}

// locate returns the file, line and shown name for a problem at path: the
// label of path or its nearest labelled ancestor if any, otherwise the file
// and the line of path or of its nearest ancestor with a known line.
func (s *source) locate(path string) (file string, line int, shown string) {
	if s == nil {
		return "", 0, path
	}
	for p := path; p != ""; p = parentPath(p) {
		if name, ok := s.labels[p]; ok {
			return "", 0, name
		}
	}
	for p := path; p != ""; p = parentPath(p) {
		if l, ok := s.lines[p]; ok {
			return s.file, l, path
		}
	}
	return s.file, 0, path
}

// parentPath strips the last element from a path: "a.b[2]" → "a.b",
// "a.b" → "a", "a" → "".
func parentPath(p string) string {
	if strings.HasSuffix(p, "]") {
		if i := strings.LastIndexByte(p, '['); i >= 0 {
			return p[:i]
		}
	}
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i]
	}
	return ""
}

// joinPath appends a key to a path.
func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
