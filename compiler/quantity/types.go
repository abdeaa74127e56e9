package quantity

import (
	"reflect"
	"strings"
	"sync"
)

// target is the type a value of t is decoded as: nil if nothing in it can
// hold a quantity (an interface, a type that decodes itself).
func target(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t == quantityType {
		return t
	}
	if t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	return t
}

// member is the type of t's member key, and its path segment.
func member(t reflect.Type, key string) (reflect.Type, string) {
	switch {
	case t == nil:
		return nil, ""
	case t.Kind() == reflect.Map:
		return t.Elem(), "[" + key + "]"
	case t.Kind() != reflect.Struct:
		return nil, ""
	}
	fs := fieldsOf(t)
	if ft, ok := fs[key]; ok {
		return ft, "." + key
	}
	for name, ft := range fs {
		if strings.EqualFold(name, key) {
			return ft, "." + key
		}
	}
	return nil, ""
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

// fieldsOf is a struct's JSON members by name, an embedded struct's
// without a name promoted as encoding/json promotes them.
func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(map[string]reflect.Type)
	}
	fs := map[string]reflect.Type{}
	addFields(t, fs, 0)
	fieldCache.Store(t, fs)
	return fs
}

func addFields(t reflect.Type, fs map[string]reflect.Type, depth int) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if ft := target(f.Type); f.Anonymous && name == "" && ft != nil && ft.Kind() == reflect.Struct && depth < 10 {
			addFields(ft, fs, depth+1)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if _, ok := fs[name]; !ok {
			fs[name] = f.Type
		}
	}
}
