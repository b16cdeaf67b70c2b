package sqlgen

import "github.com/skiffhq/skiff/datastore"

// cacheTestTables returns fresh tables for the statement caches' tests,
// which change them in place: a user (a quoted column name, a bigint), a
// shop keyed by a string, a pet pointing at both with columns of each kind,
// and the join table of pets and tags.
func cacheTestTables() (user, shop, pet, link *datastore.Table) {
	user = &datastore.Table{Name: "user", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: `na"me`, Kind: datastore.String},
		{Name: "n", Kind: datastore.Integer, Type: "bigint"},
		{Name: "best", Kind: datastore.Integer},
	}}
	shop = &datastore.Table{Name: "shop", PrimaryKey: "code", Columns: []datastore.Column{
		{Name: "code", Kind: datastore.String, PrimaryKey: true},
		{Name: "city", Kind: datastore.String},
	}}
	pet = &datastore.Table{Name: "pet", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "name", Kind: datastore.String},
		{Name: "owner", Kind: datastore.Integer},
		{Name: "shop", Kind: datastore.String},
		{Name: "meta", Kind: datastore.JSON},
		{Name: "age", Kind: datastore.Number},
	}}
	link = &datastore.Table{Name: "pet_tags__tag_pets", PrimaryKey: "id", Columns: []datastore.Column{
		{Name: "id", Kind: datastore.Integer, PrimaryKey: true},
		{Name: "pet_tags", Kind: datastore.Integer},
		{Name: "tag_pets", Kind: datastore.Integer},
	}}
	return user, shop, pet, link
}
