package config

import (
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// redactedValue replaces a secret in Running's output.
const redactedValue = "<secret>"

// Running returns c as YAML, every setting with its default applied, for
// /config: durations as Go durations ("30s"), unset and empty settings
// left out, and every secret redacted: the values of headers whose names
// look like a credential's (CredentialHeader) and any password in a URL.
// Keys themselves are never in a configuration, only the names of their
// variables and files, which are shown.
func Running(c *Config) ([]byte, error) {
	n := node(reflect.ValueOf(*c), "")
	if n == nil {
		n = &yaml.Node{Kind: yaml.MappingNode}
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return nil, fmt.Errorf("could not encode the running configuration: %w", err)
	}
	return out, nil
}

// node encodes v (the field at key, for redaction) as a YAML node, nil
// when unset or empty.
func node(v reflect.Value, key string) *yaml.Node {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch {
	case v.Type() == reflect.TypeFor[time.Duration]():
		return scalarNode(time.Duration(v.Int()).String(), v.IsZero())
	case v.Type() == reflect.TypeFor[Period]():
		return scalarNode(Period(v.Int()).String(), v.IsZero())
	}
	switch v.Kind() {
	case reflect.Struct:
		return structNode(v)
	case reflect.Slice:
		return seqNode(v, key)
	case reflect.Map:
		return mapNode(v, key)
	case reflect.String:
		s := v.String()
		if key == "base_url" {
			s = redactURL(s)
		}
		return scalarNode(s, s == "")
	}
	return scalarNode(fmt.Sprint(v.Interface()), v.IsZero() && v.Kind() != reflect.Bool)
}

// scalarNode is a plain scalar, nil when empty.
func scalarNode(s string, empty bool) *yaml.Node {
	if empty {
		return nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Value: s}
}

// structNode encodes the fields with a yaml tag, in declaration order.
func structNode(v reflect.Value) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := range v.NumField() {
		f := v.Type().Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || key == "" || key == "-" {
			continue
		}
		if c := node(v.Field(i), key); c != nil {
			n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, c)
		}
	}
	if len(n.Content) == 0 {
		return nil
	}
	return n
}

// seqNode encodes a slice, nil when empty.
func seqNode(v reflect.Value, key string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	for i := range v.Len() {
		if c := node(v.Index(i), key); c != nil {
			n.Content = append(n.Content, c)
		}
	}
	if len(n.Content) == 0 {
		return nil
	}
	return n
}

// mapNode encodes a map in key order; under headers, the values of
// credential headers are redacted.
func mapNode(v reflect.Value, key string) *yaml.Node {
	keys := make([]string, 0, v.Len())
	for _, k := range v.MapKeys() {
		keys = append(keys, fmt.Sprint(k.Interface()))
	}
	slices.Sort(keys)
	n := &yaml.Node{Kind: yaml.MappingNode}
	for _, k := range keys {
		val := node(v.MapIndex(reflect.ValueOf(k).Convert(v.Type().Key())), k)
		if _, secret := CredentialHeader(k); secret && key == "headers" {
			val = &yaml.Node{Kind: yaml.ScalarNode, Value: redactedValue}
		}
		if val == nil {
			val = &yaml.Node{Kind: yaml.ScalarNode, Value: ""}
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, val)
	}
	if len(n.Content) == 0 {
		return nil
	}
	return n
}

// redactURL replaces the password of a URL.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), redactedValue)
	}
	return u.String()
}
