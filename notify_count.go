package skiff

import (
	"context"
	"reflect"

	"github.com/skiffhq/skiff/realtime"
)

// NotificationObserver is an optional interface of Options.Observer:
// ObserveNotification is called once per model notification the blueprint
// actions publish (created, updated, destroyed, addedTo, removedFrom),
// whatever the number of recipients. It must be safe for concurrent use.
type NotificationObserver interface {
	ObserveNotification(model, verb string)
}

// countingHub is the app's hub as the blueprint actions see it, reporting
// each model notification to an observer. It forwards Count and
// Subscribed, which the actions use to skip work nobody would receive.
type countingHub struct {
	*realtime.Hub
	obs NotificationObserver
}

func (h countingHub) Publish(ctx context.Context, identity string, ids []any, data any, omit string) error {
	h.obs.ObserveNotification(identity, verbOf(data))
	return h.Hub.Publish(ctx, identity, ids, data, omit)
}

func (h countingHub) PublishWatchers(ctx context.Context, identity string, data any, omit string) error {
	h.obs.ObserveNotification(identity, verbOf(data))
	return h.Hub.PublishWatchers(ctx, identity, data, omit)
}

// verbOf reads the Verb field of a notification message (the blueprint
// package's message structs, or a map with a "verb" key).
func verbOf(data any) string {
	if m, ok := data.(map[string]any); ok {
		v, _ := m["verb"].(string)
		return v
	}
	v := reflect.ValueOf(data)
	for v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return ""
	}
	if f := v.FieldByName("Verb"); f.IsValid() && f.Kind() == reflect.String {
		return f.String()
	}
	return ""
}
