package mysql

import "testing"

// TestErrColumn reads the column out of the messages of MySQL 8 and
// MariaDB, which quote it differently.
func TestErrColumn(t *testing.T) {
	for msg, want := range map[string]string{
		"Data too long for column 'code' at row 1":                                     "code",
		"Out of range value for column 'small' at row 3":                               "small",
		"Incorrect integer value: 'abc' for column `skiff_test_1`.`fits`.`n` at row 1": "n",
		"Incorrect integer value: 'abc' for column 'n' at row 1":                       "n",
		"Incorrect datetime value: 'soon' for column `db`.`t`.`when at` at row 1":      "when at",
		"Truncated incorrect DOUBLE value: 'x'":                                        "",
		"Data truncated for column `db`.`t`.`a.b` at row 1":                            "a.b",
		"Data truncated for column 'kind' at row 1":                                    "kind",
	} {
		if got := errColumn(msg); got != want {
			t.Errorf("errColumn(%q) = %q, want %q", msg, got, want)
		}
	}
}
