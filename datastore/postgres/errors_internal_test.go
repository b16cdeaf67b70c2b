package postgres

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDetailColumns(t *testing.T) {
	tests := []struct {
		detail string
		want   []string
	}{
		{"Key (email)=(a@x) already exists.", []string{"email"}},
		{`Key ("left", "right")=(1, 2) already exists.`, []string{"left", "right"}},
		{`Key ("we""ird")=(x) already exists.`, []string{`we"ird`}},
		{"something else", nil},
	}
	for _, tt := range tests {
		if got := detailColumns(tt.detail); !cmp.Equal(got, tt.want) {
			t.Errorf("detailColumns(%q) = %q, want %q", tt.detail, got, tt.want)
		}
	}
}
