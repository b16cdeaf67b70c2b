module github.com/skiffhq/skiff

go 1.26
