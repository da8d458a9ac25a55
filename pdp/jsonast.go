package main

// parseValue turns a decision input (JSON) into the ast.Value OPA evaluates, in one pass: no
// round through map[string]any and ast.InterfaceToValue as sdk.Decision does. It accepts and
// means exactly what OPA's own util.UnmarshalJSON + ast.InterfaceToValue accept and mean
// (encoding/json with UseNumber): strings that need unescaping or hold invalid UTF-8 are
// decoded by encoding/json itself, numbers keep their text (ast.Number), a repeated key keeps
// its last value. jsonast_test.go checks the two agree.

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
)

// encoding/json's own nesting limit.
const maxDepth = 10000

var errDepth = errors.New("exceeded max depth")

type jsonParser struct {
	b   []byte
	i   int
	dep int
}

func parseValue(b []byte) (ast.Value, error) {
	p := jsonParser{b: b}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.b) {
		return nil, p.errorf("invalid character %q after top-level value", p.b[p.i])
	}
	return v, nil
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{p.i}, args...)...)
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (ast.Value, error) {
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return ast.String(s), nil
	case c == 't':
		return p.literal("true", ast.Boolean(true))
	case c == 'f':
		return p.literal("false", ast.Boolean(false))
	case c == 'n':
		return p.literal("null", ast.Null{})
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		return nil, p.errorf("invalid character %q looking for beginning of value", c)
	}
}

func (p *jsonParser) literal(word string, v ast.Value) (ast.Value, error) {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return nil, p.errorf("invalid literal")
	}
	p.i += len(word)
	return v, nil
}

func (p *jsonParser) enter() error {
	p.dep++
	if p.dep > maxDepth {
		return errDepth
	}
	return nil
}

func (p *jsonParser) object() (ast.Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.i++ // {
	var kvs [][2]*ast.Term
	p.space()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		p.dep--
		return ast.NewObject(), nil
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, p.errorf("looking for beginning of object key string")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, p.errorf("after object key")
		}
		p.i++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		kvs = append(kvs, [2]*ast.Term{ast.StringTerm(k), ast.NewTerm(v)})
		p.space()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end of JSON input")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			continue
		case '}':
			p.i++
			p.dep--
			obj := ast.NewObjectWithCapacity(len(kvs))
			for _, kv := range kvs {
				obj.Insert(kv[0], kv[1]) // a repeated key keeps its last value, as in a Go map
			}
			return obj, nil
		default:
			return nil, p.errorf("invalid character %q after object key:value pair", p.b[p.i])
		}
	}
}

func (p *jsonParser) array() (ast.Value, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.i++ // [
	var elems []*ast.Term
	p.space()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		p.dep--
		return ast.NewArray(), nil
	}
	for {
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		elems = append(elems, ast.NewTerm(v))
		p.space()
		if p.i >= len(p.b) {
			return nil, p.errorf("unexpected end of JSON input")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			p.dep--
			return ast.NewArray(elems...), nil
		default:
			return nil, p.errorf("invalid character %q after array element", p.b[p.i])
		}
	}
}

// str reads a string token. Plain ones (no escape, valid UTF-8, no control character) are
// taken as they are; any other is decoded by encoding/json, so that escapes, surrogates and
// invalid bytes mean what they mean to OPA's own decoder.
func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++ // opening quote
	plain := true
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			raw := p.b[start+1 : p.i-1]
			if plain && utf8.Valid(raw) {
				return string(raw), nil
			}
			var s string
			if err := json.Unmarshal(p.b[start:p.i], &s); err != nil {
				return "", err
			}
			return s, nil
		case c == '\\':
			plain = false
			p.i += 2
		case c < 0x20:
			return "", p.errorf("invalid character in string literal")
		default:
			p.i++
		}
	}
	return "", p.errorf("unexpected end of JSON input")
}

func (p *jsonParser) number() (ast.Value, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	if p.i >= len(p.b) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	switch c := p.b[p.i]; {
	case c == '0':
		p.i++
	case c >= '1' && c <= '9':
		p.digits()
	default:
		return nil, p.errorf("invalid character %q in numeric literal", c)
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.digits() {
			return nil, p.errorf("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return nil, p.errorf("in exponent of numeric literal")
		}
	}
	return ast.InterfaceToValue(json.Number(p.b[start:p.i]))
}

func (p *jsonParser) digits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}
