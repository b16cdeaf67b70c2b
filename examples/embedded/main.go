// Command embedded shows Skiff used as a Go library: models defined in Go,
// a custom parseBlueprintOptions that caps page sizes and sorts newest
// first, Go actions bound to custom routes (one publishes to every socket
// but the sender), and graceful shutdown.
//
//	go run ./examples/embedded -addr 127.0.0.1:1338
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/skiffhq/skiff"
	"github.com/skiffhq/skiff/blueprint"
	"github.com/skiffhq/skiff/datastore"
	"github.com/skiffhq/skiff/datastore/sqlite"
	"github.com/skiffhq/skiff/model"
	"github.com/skiffhq/skiff/realtime"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:1338", "listen address")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "embedded:", err)
		os.Exit(1)
	}
}

// maxPage is the largest page this app lets clients ask for.
const maxPage = 100

// parseOptions wraps the built-in parser: find pages are capped at maxPage
// and, unless the client sorts, newest first.
func parseOptions(ctx context.Context, r *blueprint.Request) (*blueprint.Options, error) {
	o, err := blueprint.DefaultParseOptions(ctx, r)
	if err != nil || r.Action != blueprint.Find {
		return o, err
	}
	if n, ok := o.Criteria["limit"].(string); ok {
		if v, err := strconv.Atoi(n); err == nil && v > maxPage {
			return nil, blueprint.UsageError(fmt.Sprintf("limit may be at most %d", maxPage))
		}
	}
	if _, ok := o.Criteria["sort"]; !ok {
		o.Criteria["sort"] = "createdAt DESC"
	}
	return o, nil
}

func run(ctx context.Context, addr string) error {
	defaults := map[string]any{"attributes": map[string]any{
		"id":        map[string]any{"type": "number", "autoIncrement": true},
		"createdAt": map[string]any{"type": "number", "autoCreatedAt": true},
		"updatedAt": map[string]any{"type": "number", "autoUpdatedAt": true},
	}}
	note, err := model.Parse("note", "main.go", map[string]any{"attributes": map[string]any{
		"text": map[string]any{"type": "string", "required": true},
	}}, defaults)
	if err != nil {
		return err
	}
	db, err := sqlite.Open(ctx, datastore.Config{Name: "default", URL: ":memory:"})
	if err != nil {
		return err
	}
	// Actions run after New returns, so they may use the app.
	var app *skiff.App
	announce := func(w http.ResponseWriter, r *http.Request) {
		text := r.URL.Query().Get("text")
		// The sender (a socket, for a virtual request) is left out.
		if err := app.Realtime().Blast(r.Context(), "announcement", map[string]string{"text": text}, realtime.SocketID(r.Context())); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}
	app, err = skiff.New(ctx, skiff.Options{
		Models:                []*model.Model{note},
		Datastores:            map[string]datastore.Adapter{"default": db},
		ParseBlueprintOptions: parseOptions,
		Actions: map[string]http.Handler{
			"note/hello": http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprintln(w, "hello from a Go action")
			}),
			"note/announce": http.HandlerFunc(announce),
		},
		Routes: []skiff.Route{
			{Method: "GET", Path: "/hello", Action: "note/hello"},
			{Method: "POST", Path: "/announce", Action: "note/announce"},
			{Method: "GET", Path: "/latest", Action: "note/find"},
		},
		Logger: skiff.NewTextLogger(os.Stderr, slog.LevelInfo),
	})
	if err != nil {
		_ = db.Close()
		return err
	}
	defer app.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Println("listening on http://" + ln.Addr().String())
	return app.Serve(ctx, ln)
}
