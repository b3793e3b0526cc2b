package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/llmprober/llmprober/probe/localfile"
)

// Load reads the YAML file at path, decodes it strictly (unknown keys are
// errors), applies defaults and validates it. A relative trace file name is
// taken relative to the directory of path. Problems with the content are
// returned as Errors naming the file, line and field path, ordered by line:
// the problems with the document's shape (unknown keys, wrong types) and
// those with every value that could be decoded despite them.
func Load(path string) (*Config, error) {
	c, found, err := load(path)
	if err != nil {
		return nil, err
	}
	return c.finish(found, false)
}

// Parse is Load for a file's contents; filename is used in error messages.
func Parse(data []byte, filename string) (*Config, error) {
	c, found := decode(data, filename)
	return c.finish(found, false)
}

// load reads and decodes the file at path, without defaults or validation.
// It returns the problems with the document's shape, and a Config of what
// could be decoded (nil when nothing could).
func load(path string) (*Config, Errors, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return loadData(path, data)
}

// ReadFile returns the contents of the configuration file at path through
// localfile's bounded reader: a regular file (a symbolic link to one is
// followed) of at most localfile.Config.MaxBytes (4 MiB), opened without
// waiting for a writer. A named pipe, a device, a directory or a larger
// file is an error naming path and saying what is wrong (wrapping
// localfile.ErrNotRegular or localfile.ErrTooLarge), found without
// reading the file.
func ReadFile(path string) ([]byte, error) {
	data, err := localfile.ReadFile(path, localfile.Config)
	if err != nil {
		return nil, fmt.Errorf("could not read %s: %w", path, err)
	}
	return data, nil
}

// loadData decodes data, the contents of the file at path, without
// defaults or validation, as load does.
func loadData(path string, data []byte) (*Config, Errors, error) {
	c, found := decode(data, path)
	if c != nil {
		c.resolveTraceFiles(filepath.Dir(path))
		c.resolveAudioFiles(filepath.Dir(path))
		c.resolveCredentialFiles(filepath.Dir(path))
	}
	return c, found, nil
}

// finish applies defaults and validates, adding the problems found before
// (found); with check, the file-system and environment checks run too when
// there is any problem, so that one report lists them all. c may be nil when
// nothing could be decoded: found is then returned.
func (c *Config) finish(found Errors, check bool) (*Config, error) {
	if c == nil {
		return nil, found.sorted()
	}
	if errs := c.problems(found, check); len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// problems applies defaults and returns found plus the problems Validate
// finds, and with check those Check finds when there is any other; sorted
// by line.
func (c *Config) problems(found Errors, check bool) Errors {
	c.ApplyDefaults()
	col := &collector{src: c.src, errs: found}
	c.validate(col)
	if check && len(col.errs) > 0 {
		c.check(col)
	}
	return col.errs.sorted()
}

// decode checks the document's shape, recording lines and broken paths,
// then decodes it leniently: a value of the wrong shape is left unset. It
// returns the problems with the shape, and what could be decoded (nil when
// the document cannot be decoded at all). It applies no defaults and
// validates no values.
func decode(data []byte, filename string) (*Config, Errors) {
	if fe := textError(data, filename); fe != nil {
		return nil, Errors{fe}
	}
	src := newSource(filename)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, Errors{lineError(filename, err.Error())}
	}
	errs, decodable := walkDocument(&doc, src)
	if !decodable {
		return nil, errs
	}
	c := &Config{src: src}
	if doc.Kind == 0 {
		return c, errs
	}
	// The walk removed duplicate keys, so the rest of their mappings decode.
	if err := doc.Decode(c); err != nil {
		// The walk is meant to find every problem the decoder does, and to
		// say it without quoting values: the decoder's are used only when
		// the walk found none.
		if len(errs) == 0 {
			errs = decodeErrors(filename, err)
		}
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, errs
		}
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		errs = append(errs, &FieldError{File: filename, Line: next.Line, Msg: "only one YAML document is allowed"})
	}
	return c, errs
}

// yamlLine matches the line prefix of the YAML package's messages.
var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// lineError splits "line N: msg" into a FieldError.
func lineError(filename, msg string) *FieldError {
	fe := &FieldError{File: filename, Msg: strings.TrimPrefix(msg, "yaml: ")}
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		fe.Line, _ = strconv.Atoi(m[1])
		fe.Msg = msg[len(m[0]):]
	}
	return fe
}

// decodeErrors turns a decoding error into Errors, one per problem.
func decodeErrors(filename string, err error) Errors {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return Errors{lineError(filename, err.Error())}
	}
	errs := make(Errors, 0, len(te.Errors))
	for _, msg := range te.Errors {
		errs = append(errs, lineError(filename, msg))
	}
	return errs
}
