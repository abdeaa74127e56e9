package tree

import (
	"fmt"
	"reflect"
)

// Objects are the typed objects render encoded a tree's YAML files from,
// by path, one per document in document order. The stages after render
// read a file's objects from here rather than parsing the YAML render has
// just written: at XL that parse was a third of the checker's time.
// TestTypedRoundTrip (compiler/) proves that every file's bytes decode
// back to exactly its objects, so nothing is lost by skipping the parse.
type Objects map[string][]any

// Typed is a tree as the stages after render read it: the bytes, and where
// render kept them, the objects they were encoded from. A tree read from
// disk has no Objects; every file is then parsed, as before.
type Typed struct {
	Tree
	Objects Objects
}

// Bytes is a tree with no objects: every file is read from its bytes.
func Bytes(t Tree) Typed { return Typed{Tree: t} }

// Documents returns the file's documents, as render's objects where it
// kept them (objs, nil), else as YAML (nil, docs). The objects are render's
// own: a reader must not change them.
func (t Typed) Documents(p string) (objs []any, docs [][]byte) {
	if objs, ok := t.Objects[p]; ok {
		return objs, nil
	}
	return nil, Docs(t.Tree[p])
}

// DecodeAll appends every document of the file at p to out: render's
// objects, copied (a shallow copy: nested slices and maps are render's,
// which no reader changes), where each is a T or a *T; else each document
// decoded strictly from the YAML, on every CPU (each calls decode).
func DecodeAll[T any](t Typed, p string, out *[]T, each func(n int, f func(i int) error) error) error {
	if objs, ok := t.Objects[p]; ok {
		vs := make([]T, 0, len(objs))
		for _, o := range objs {
			v, ok := As[T](o)
			if !ok {
				return fmt.Errorf("%s: render kept a %T where a %s was read", p, o, reflect.TypeFor[T]())
			}
			vs = append(vs, v)
		}
		if len(*out) == 0 {
			*out = vs // not copied again
		} else {
			*out = append(*out, vs...)
		}
		return nil
	}
	docs := Docs(t.Tree[p])
	vs := make([]T, len(docs))
	if err := each(len(docs), func(i int) error { return Decode(docs[i], &vs[i]) }); err != nil {
		return err
	}
	*out = append(*out, vs...)
	return nil
}

// As is o as a T, whether render kept a T or a *T.
func As[T any](o any) (T, bool) {
	switch v := o.(type) {
	case T:
		return v, true
	case *T:
		if v != nil {
			return *v, true
		}
	}
	var zero T
	return zero, false
}

// DecodeKind appends the file's documents of one kind to out, for a file
// of several kinds: render's objects that are a T or a *T, else the
// documents whose kind is kind, each decoded strictly.
func DecodeKind[T any](t Typed, p, kind string, out *[]T) error {
	objs, docs := t.Documents(p)
	for _, o := range objs {
		if v, ok := As[T](o); ok {
			*out = append(*out, v)
		}
	}
	for _, doc := range docs {
		k, err := Kind(doc)
		if err != nil {
			return err
		}
		if k != kind {
			continue
		}
		var v T
		if err := Decode(doc, &v); err != nil {
			return err
		}
		*out = append(*out, v)
	}
	return nil
}
