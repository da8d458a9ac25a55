package main

import (
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/util"
)

// What sdk.Decision does with the same bytes.
func viaSDK(b []byte) (ast.Value, error) {
	var x any
	if err := util.UnmarshalJSON(b, &x); err != nil {
		return nil, err
	}
	return ast.InterfaceToValue(x)
}

func agree(t *testing.T, doc string) {
	t.Helper()
	want, werr := viaSDK([]byte(doc))
	got, gerr := parseValue([]byte(doc))
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: OPA's decoder says %v, parseValue says %v", doc, werr, gerr)
	}
	if werr != nil {
		return
	}
	if want.Compare(got) != 0 {
		t.Fatalf("%q: OPA's decoder gives %v, parseValue %v", doc, want, got)
	}
	// The same kind of value too (a number stays a number with its text, a set never appears).
	if want.String() != got.String() {
		t.Fatalf("%q: %s != %s", doc, want.String(), got.String())
	}
}

func TestParseValueMeansWhatOPAsDecoderMeans(t *testing.T) {
	docs := []string{
		`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `1.5e3`, `-12.25E-2`, `1e400`, `123456789012345678901234567890`,
		`""`, `"plain"`, ` {"a" : [1, 2 ,{"b":null}] } `, "\t\n{\"a\":1}\r\n",
		`{"a":1,"a":2}`, `{"a":{"x":1},"a":{"y":2}}`,
		`"esc \" \\ \/ \b \f \n \r \t"`, `"\u00e9\u4e2d"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\u0000"`,
		"\"caf\xc3\xa9\"", "\"bad \xff byte\"", "\"half \xe4\xb8\"",
		`{"input":{"call":{"tool":"read_file","args":{"path":"/ws/a.txt"}},"n":[1,2.0,3e1]}}`,
		// What either decoder refuses.
		``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `01`, `1.`, `.5`, `-`, `1e`, `+1`, `tru`, `nul`,
		`"unterminated`, "\"tab\tinside\"", "\"nl\ninside\"", `"\x"`, `"\u12"`, `{} {}`, `[1] x`, `NaN`, `"\`,
	}
	for _, doc := range docs {
		agree(t, doc)
	}
}

// Generated documents: nested objects and arrays of every kind of scalar, with escapes.
func TestParseValueOnGeneratedDocuments(t *testing.T) {
	rnd := rand.New(rand.NewSource(18))
	pieces := []string{"a", "é", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "/", " ", "\\\\", "x y", "\xff"}
	var gen func(depth int) string
	gen = func(depth int) string {
		switch k := rnd.Intn(8); {
		case depth > 4 || k < 3:
			switch rnd.Intn(6) {
			case 0:
				return strconv.Itoa(rnd.Intn(2000) - 1000)
			case 1:
				return strconv.FormatFloat(rnd.NormFloat64()*1e6, 'g', -1, 64)
			case 2:
				return []string{"true", "false", "null"}[rnd.Intn(3)]
			default:
				var sb strings.Builder
				sb.WriteByte('"')
				for i := rnd.Intn(5); i > 0; i-- {
					sb.WriteString(pieces[rnd.Intn(len(pieces))])
				}
				sb.WriteByte('"')
				return sb.String()
			}
		case k < 5:
			parts := make([]string, rnd.Intn(5))
			for i := range parts {
				parts[i] = gen(depth + 1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		default:
			parts := make([]string, rnd.Intn(5))
			for i := range parts {
				parts[i] = `"k` + strconv.Itoa(rnd.Intn(4)) + `":` + gen(depth+1)
			}
			return "{" + strings.Join(parts, ", ") + "}"
		}
	}
	for range 3000 {
		agree(t, gen(0))
	}
}

func BenchmarkParseInput(b *testing.B) {
	path := os.Getenv("PDP_BENCH_INPUT")
	if path == "" {
		b.Skip("PDP_BENCH_INPUT is not set")
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parseValue", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := parseValue(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sdk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := viaSDK(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
