package testenv_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/skiffhq/skiff/internal/testenv"
)

func TestPostgresIsolatedSchema(t *testing.T) {
	url := testenv.Postgres(t)
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer conn.Close(context.Background())
	var schema string
	if err := conn.QueryRow(t.Context(), "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if schema == "" || schema == "public" {
		t.Errorf("current_schema() = %q, want the test's own schema", schema)
	}
	if other := testenv.Postgres(t); other == url {
		t.Errorf("Postgres returned the same URL twice: %s", url)
	}
}
