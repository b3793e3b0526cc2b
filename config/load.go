package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the YAML file at path, decodes it strictly (unknown keys are
// errors), applies defaults and validates it. Problems with the content are
// returned as Errors naming the file, line and field path.
func Load(path string) (*Config, error) {
	c, err := load(path)
	if err != nil {
		return nil, err
	}
	return c.finish()
}

// Parse is Load for a file's contents; filename is used in error messages.
func Parse(data []byte, filename string) (*Config, error) {
	c, err := decode(data, filename)
	if err != nil {
		return nil, err
	}
	return c.finish()
}

// load reads and decodes the file at path, without defaults or validation.
func load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("could not read config: %w", err)
	}
	return decode(data, path)
}

// finish applies defaults and validates.
func (c *Config) finish() (*Config, error) {
	c.ApplyDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// decode checks the document's shape, recording lines, then decodes it
// strictly. It applies no defaults and validates no values.
func decode(data []byte, filename string) (*Config, error) {
	src := newSource(filename)
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, Errors{lineError(filename, err.Error())}
	}
	if errs := walkDocument(&doc, src); len(errs) > 0 {
		return nil, errs
	}
	c := &Config{src: src}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil && !errors.Is(err, io.EOF) {
		return nil, decodeErrors(filename, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, Errors{{File: filename, Line: next.Line, Msg: "only one YAML document is allowed"}}
	}
	return c, nil
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
