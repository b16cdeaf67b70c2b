// sails-disk (Sails' embedded store, compared with Skiff's SQLite) unless
// SAILS_BENCH_POSTGRES_URL names a PostgreSQL database (compared with Skiff on PostgreSQL).
// sails-postgresql always writes to the "public" schema of its database, so the benchmark
// gives it a database of its own.
const pgURL = process.env.SAILS_BENCH_POSTGRES_URL;

module.exports.datastores = {
  default: pgURL
    ? { adapter: 'sails-postgresql', url: pgURL }
    : { adapter: 'sails-disk', dir: process.env.SAILS_BENCH_DISK_DIR || '.tmp/localDiskDb' },
};
