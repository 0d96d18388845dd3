package main

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// unknownKey finds a key of the config file b that names no setting of t
// (Config), with the keys of the objects it is in: "auth.anonymus".
// encoding/json names only the key itself, which inside auth, mcp or an
// OAuth provider does not say where it is. "" when none is found.
func unknownKey(b []byte, t reflect.Type) string {
	var obj map[string]json.RawMessage
	if json.Unmarshal(b, &obj) != nil {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		f, ok := fieldByKey(t, k)
		if !ok {
			return k
		}
		if below := unknownWithin(obj[k], indirect(f.Type)); below != "" {
			return k + below
		}
	}
	return ""
}

// unknownWithin is unknownKey within the value v of a setting of type t,
// as the rest of the path: ".anonymus", ".google.clientid", "[2].name".
// A value of another shape than t's finds nothing (it is a type error,
// which encoding/json words).
func unknownWithin(v json.RawMessage, t reflect.Type) string {
	switch elem := t; {
	case t.Kind() == reflect.Struct:
		if k := unknownKey(v, t); k != "" {
			return "." + k
		}
	case t.Kind() == reflect.Map && indirect(t.Elem()).Kind() == reflect.Struct:
		elem = indirect(t.Elem())
		var entries map[string]json.RawMessage
		_ = json.Unmarshal(v, &entries)
		for _, name := range slices.Sorted(maps.Keys(entries)) {
			if k := unknownKey(entries[name], elem); k != "" {
				return "." + name + "." + k
			}
		}
	case t.Kind() == reflect.Slice && indirect(t.Elem()).Kind() == reflect.Struct:
		elem = indirect(t.Elem())
		var items []json.RawMessage
		_ = json.Unmarshal(v, &items)
		for i, item := range items {
			if k := unknownKey(item, elem); k != "" {
				return "[" + strconv.Itoa(i) + "]." + k
			}
		}
	}
	return ""
}

// fieldByKey finds the field of struct t that key k sets, as encoding/json
// matches them: by the json tag's name, or the field's, case-insensitively.
func fieldByKey(t reflect.Type, k string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, k) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func indirect(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}
