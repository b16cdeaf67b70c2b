package realtime_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/skiffhq/skiff/internal/socketio"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/realtime"
)

// nopConn accepts every packet.
type nopConn struct{ id string }

func (c nopConn) ID() string                            { return c.id }
func (c nopConn) Send(p *socketio.Packet) error         { return nil }
func (c nopConn) EmitRaw(string, json.RawMessage) error { return nil }

// BenchmarkCreated is the hub's share of a create with n watchers: the
// created notification to every watcher, then every watcher subscribed to
// the new record (Introduce). The record rooms pile up as in a real run.
func BenchmarkCreated(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			user, err := model.Parse("user", "user.yaml", map[string]any{"attributes": map[string]any{
				"id": map[string]any{"type": "number", "autoIncrement": true}, "name": "string"}}, nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := model.NewSchema([]*model.Model{user}); err != nil {
				b.Fatal(err)
			}
			h := realtime.NewHub([]*model.Model{user}, nil)
			for i := range n {
				c := nopConn{id: "s" + strconv.Itoa(i)}
				h.Register(c)
				if err := h.Watch(c.id, "user"); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			b.ReportAllocs()
			id := 0.0
			for b.Loop() {
				id++
				msg := map[string]any{"verb": "created", "id": id, "data": map[string]any{"id": id, "name": "Ann"}}
				if err := h.PublishWatchers(ctx, "user", msg, ""); err != nil {
					b.Fatal(err)
				}
				if err := h.Introduce("user", id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
