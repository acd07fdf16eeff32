package incidentdto

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Layout is how one format writes a record of the shape: its keys in order, those it leaves out
// when empty, the keys of the shape it does not write, and how it writes the records in its
// lists. Reading needs none of it: encoding/json reads the keys in any order.
//
// A layout is compiled, once for each type it writes, into a struct type whose fields are the
// layout's keys in its order with their tags, so that writing is one copy of the values and one
// encoding/json Marshal of a type it has cached, as fast as a struct written by hand.
type Layout struct {
	keys  []string
	omit  map[string]bool
	drop  map[string]bool
	items map[string]*Layout
	plans sync.Map // reflect.Type → *plan
}

// NewLayout takes the keys in the order they are written, each as a JSON tag names it:
// "summary,omitempty" leaves summary out when it is empty, by encoding/json's rule.
func NewLayout(keys ...string) *Layout {
	l := &Layout{omit: map[string]bool{}, drop: map[string]bool{}, items: map[string]*Layout{}}
	for _, key := range keys {
		name, option, _ := strings.Cut(key, ",")
		l.keys = append(l.keys, name)
		if option == "omitempty" {
			l.omit[name] = true
		}
	}
	return l
}

// Drop names the keys of the shape that the format does not write.
func (l *Layout) Drop(keys ...string) *Layout {
	for _, key := range keys {
		l.drop[key] = true
	}
	return l
}

// Nest says how each record in the list under key is written.
func (l *Layout) Nest(key string, items *Layout) *Layout {
	l.items[key] = items
	return l
}

// Marshal writes v, a struct, in the layout. The fields are found by their JSON names, those of
// embedded structs included, the shallower winning as in encoding/json. A key of v that the
// layout neither places nor drops is an error, so that a field added to the shape cannot go
// missing from a format unnoticed; so is a key of the layout that v does not have.
func (l *Layout) Marshal(v any) ([]byte, error) {
	value, err := l.value(v)
	if err != nil {
		return nil, err
	}
	return json.Marshal(value)
}

// Value is v in the layout as a value of the layout's struct type, for encoding/json to write
// as part of a larger value: it writes it directly, without the second pass over the bytes it
// gives whatever a MarshalJSON returns (half the time of writing an incident). A layout that
// does not fit v's type is a mistake in the program, which every test of the format meets: it
// panics.
func (l *Layout) Value(v any) any {
	value, err := l.value(v)
	if err != nil {
		panic(err)
	}
	return value
}

func (l *Layout) value(v any) (any, error) {
	rv := reflect.ValueOf(v)
	p, err := l.plan(rv.Type())
	if err != nil {
		return nil, err
	}
	return p.fill(rv).Interface(), nil
}

// plan is a layout compiled for one type: the struct type it writes, and where each of its
// fields comes from.
type plan struct {
	typ    reflect.Type
	fields []planField
}

type planField struct {
	from  []int // the index path of the source field
	items *plan // for a list of records written in their own layout
}

func (l *Layout) plan(src reflect.Type) (*plan, error) {
	if p, ok := l.plans.Load(src); ok {
		return p.(*plan), nil
	}
	p, err := l.compile(src)
	if err != nil {
		return nil, err
	}
	l.plans.Store(src, p)
	return p, nil
}

func (l *Layout) compile(src reflect.Type) (*plan, error) {
	if src.Kind() != reflect.Struct {
		return nil, fmt.Errorf("a layout writes structs, not %s", src)
	}
	found := jsonFields(src)
	for key := range found {
		if !l.drop[key] && !slices.Contains(l.keys, key) {
			return nil, fmt.Errorf("%s: the layout has no place for the key %q", src, key)
		}
	}
	p := &plan{}
	var fields []reflect.StructField
	for n, key := range l.keys {
		f, ok := found[key]
		if !ok {
			return nil, fmt.Errorf("%s has no key %q", src, key)
		}
		pf := planField{from: f.Index}
		typ := f.Type
		if items := l.items[key]; items != nil {
			if typ.Kind() != reflect.Slice {
				return nil, fmt.Errorf("%s: %q is not a list", src, key)
			}
			var err error
			if pf.items, err = items.plan(typ.Elem()); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
			typ = reflect.SliceOf(pf.items.typ)
		}
		tag := key
		if l.omit[key] {
			tag += ",omitempty"
		}
		fields = append(fields, reflect.StructField{Name: fmt.Sprintf("F%d", n), Type: typ, Tag: reflect.StructTag(`json:"` + tag + `"`)})
		p.fields = append(p.fields, pf)
	}
	p.typ = reflect.StructOf(fields)
	return p, nil
}

// fill copies a value of the plan's source type into a new value of its struct type.
func (p *plan) fill(src reflect.Value) reflect.Value {
	out := reflect.New(p.typ).Elem()
	for n, f := range p.fields {
		value := src.FieldByIndex(f.from)
		if f.items == nil {
			out.Field(n).Set(value)
			continue
		}
		if value.IsNil() {
			continue
		}
		list := reflect.MakeSlice(p.typ.Field(n).Type, value.Len(), value.Len())
		for k := range value.Len() {
			list.Index(k).Set(f.items.fill(value.Index(k)))
		}
		out.Field(n).Set(list)
	}
	return out
}

// jsonFields finds a struct's fields by their JSON names, through embedded structs; at equal
// depth the first wins, and a shallower field hides a deeper one, as in encoding/json.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	found := map[string]reflect.StructField{}
	depth := map[string]int{}
	var walk func(t reflect.Type, index []int)
	walk = func(t reflect.Type, index []int) {
		for n := range t.NumField() {
			f := t.Field(n)
			path := append(append([]int{}, index...), n)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
				walk(f.Type, path)
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if d, seen := depth[name]; seen && d <= len(path) {
				continue
			}
			f.Index = path
			found[name], depth[name] = f, len(path)
		}
	}
	walk(t, nil)
	return found
}
