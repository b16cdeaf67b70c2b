package criteria_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/criteria"
	"github.com/skiffhq/skiff/model"
)

func TestLimits(t *testing.T) {
	m := testModel()
	list := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprint(i + 1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	ors := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`{"age":%d}`, i)
		}
		return `{"or":[` + strings.Join(parts, ",") + `]}`
	}
	sorts := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf(`"k%d"`, i)
		}
		return `{"sort":[` + strings.Join(parts, ",") + `]}`
	}
	schemaless := testModel()
	schemaless.Schema = false
	cases := []struct {
		name string
		m    *model.Model
		in   string
		ok   bool
	}{
		{"in at the limit", m, `{"id":{"in":` + list(criteria.MaxTerms) + `}}`, true},
		{"in over the limit", m, `{"id":{"in":` + list(criteria.MaxTerms+1) + `}}`, false},
		{"nin over the limit", m, `{"id":{"nin":` + list(criteria.MaxTerms+1) + `}}`, false},
		{"bare list over the limit", m, list(criteria.MaxTerms + 1), false},
		{"or at the limit", m, ors(criteria.MaxTerms), true},
		{"or over the limit", m, ors(criteria.MaxTerms + 1), false},
		{"or and in together over", m, `{"and":[` + ors(criteria.MaxTerms/2) + `,{"id":` + list(criteria.MaxTerms/2+1) + `}]}`, false},
		{"sort at the limit", schemaless, sorts(criteria.MaxSortKeys), true},
		{"sort over the limit", schemaless, sorts(criteria.MaxSortKeys + 1), false},
		{"NUL in a value", m, `{"name":"a\u0000"}`, false},
		{"NUL in a pattern", m, `{"name":{"contains":"\u0000"}}`, false},
		{"NUL in a list", m, `{"name":{"nin":["a","\u0000"]}}`, false},
		{"NUL in a JSON value", m, `{"meta":{"a":"\u0000"}}`, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := criteria.Normalize(decode(t, tc.in), tc.m)
			if tc.ok && err != nil {
				t.Fatalf("Normalize: %v", err)
			}
			if !tc.ok {
				if me, ok := model.AsError(err); !ok || me.Code != model.CodeInvalidCriteria {
					t.Fatalf("Normalize = %v, want E_INVALID_CRITERIA", err)
				}
			}
		})
	}
}
