// sails-disk (Sails' embedded store, compared with Skiff's SQLite) unless
// SAILS_BENCH_POSTGRES_URL names a PostgreSQL database (compared with Skiff on PostgreSQL) or
// SAILS_BENCH_MYSQL_URL a MySQL/MariaDB one (compared with Skiff on MySQL).
// sails-postgresql always writes to the "public" schema of its database, so the benchmark
// gives it a database of its own; so it does sails-mysql.
const pgURL = process.env.SAILS_BENCH_POSTGRES_URL;
const myURL = process.env.SAILS_BENCH_MYSQL_URL;

module.exports.datastores = {
  default: pgURL
    ? { adapter: 'sails-postgresql', url: pgURL }
    : myURL
      ? { adapter: 'sails-mysql', url: myURL }
      : { adapter: 'sails-disk', dir: process.env.SAILS_BENCH_DISK_DIR || '.tmp/localDiskDb' },
};
