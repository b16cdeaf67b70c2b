package sqlite

import (
	"database/sql"
	"testing"

	_ "modernc.org/sqlite"
)

// TestStmtClosedMatchesDatabaseSQL: stmtClosed recognises the error
// database/sql gives for a statement closed before its use, which it does
// not export.
func TestStmtClosedMatchesDatabaseSQL(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, err := db.Prepare("select 1")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = s.Query()
	if !stmtClosed(err) {
		t.Fatalf("stmtClosed(%v) = false, want true", err)
	}
	if stmtClosed(nil) || stmtClosed(sql.ErrNoRows) {
		t.Fatal("stmtClosed matched another error")
	}
}
