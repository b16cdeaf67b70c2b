package config_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/skiffhq/skiff/internal/config"
)

func TestSessionSaveUninitialized(t *testing.T) {
	if got := mustLoad(t, nil, "", nil).SessionSettings.SaveUninitialized; got != nil {
		t.Errorf("SaveUninitialized unset = %v, want nil (the default, true)", *got)
	}
	for _, tt := range []struct {
		name  string
		files map[string]string
		vars  map[string]string
		want  bool
	}{
		{"file false", map[string]string{"config/session.yaml": "session: {saveUninitialized: false}"}, nil, false},
		{"file true", map[string]string{"config/session.yaml": "session: {saveUninitialized: true}"}, nil, true},
		{"env false", nil, map[string]string{"SKIFF_SESSION__SAVEUNINITIALIZED": "false"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := mustLoad(t, tt.files, "", tt.vars).SessionSettings.SaveUninitialized
			if got == nil || *got != tt.want {
				t.Errorf("SaveUninitialized = %v, want %t", got, tt.want)
			}
		})
	}
	for _, bad := range []string{"'yes'", "1", "[true]"} {
		_, err := config.Load(app(map[string]string{"config/session.yaml": "session: {saveUninitialized: " + bad + "}"}), "", nil)
		if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "session.saveUninitialized") {
			t.Errorf("saveUninitialized: %s: error %v, want ErrInvalid naming session.saveUninitialized", bad, err)
		} else {
			t.Log(err)
		}
	}
}
