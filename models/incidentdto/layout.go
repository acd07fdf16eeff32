package incidentdto

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Layout is how one format writes a record of the shape: its keys in order, those it leaves out
// when empty, the keys of the shape it does not write, and how it writes the records in its
// lists. Reading needs none of it: encoding/json reads the keys in any order.
type Layout struct {
	keys  []string
	omit  map[string]bool
	drop  map[string]bool
	items map[string]*Layout
}

// NewLayout takes the keys in the order they are written, each as a JSON tag names it:
// "summary,omitempty" leaves summary out when it is "", 0, false, null, [] or {}, as
// encoding/json's omitempty does.
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

// Marshal writes v, a struct that encoding/json would write as an object, in the layout. A key
// of v that the layout neither places nor drops is an error, so that a field added to the shape
// cannot go missing from a format unnoticed. v must not be a type whose MarshalJSON calls Marshal
// with itself.
func (l *Layout) Marshal(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return l.arrange(raw)
}

func (l *Layout) arrange(raw []byte) ([]byte, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, err
	}
	placed := map[string]bool{}
	var out bytes.Buffer
	out.WriteByte('{')
	for _, key := range l.keys {
		placed[key] = true
		value, ok := fields[key]
		if !ok || (l.omit[key] && isEmpty(value)) {
			continue
		}
		if items := l.items[key]; items != nil {
			var err error
			if value, err = items.arrangeList(value); err != nil {
				return nil, fmt.Errorf("%s: %w", key, err)
			}
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.WriteString(`"` + key + `":`)
		out.Write(value)
	}
	out.WriteByte('}')
	for key := range fields {
		if !placed[key] && !l.drop[key] {
			return nil, fmt.Errorf("the layout has no place for the key %q", key)
		}
	}
	return out.Bytes(), nil
}

func (l *Layout) arrangeList(raw json.RawMessage) (json.RawMessage, error) {
	if string(raw) == "null" {
		return raw, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	out.WriteByte('[')
	for n, item := range list {
		arranged, err := l.arrange(item)
		if err != nil {
			return nil, fmt.Errorf("[%d]: %w", n, err)
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(arranged)
	}
	out.WriteByte(']')
	return out.Bytes(), nil
}

// isEmpty tells whether a JSON value is one omitempty leaves out.
func isEmpty(value json.RawMessage) bool {
	switch string(value) {
	case `""`, `0`, `false`, `null`, `[]`, `{}`:
		return true
	}
	return false
}
