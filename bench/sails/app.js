// Real Sails 1.5 serving the petshop models (examples/petshop) through its blueprint REST API:
// the reference bench/compare.sh measures Skiff against. Sails itself comes from npm
// (package.json, package-lock.json); nothing of it is copied here.
//
//   npm ci && PORT=18637 node app.js
//
// Environment:
//   PORT                       port on 127.0.0.1 (default 18637)
//   SAILS_BENCH_POSTGRES_URL   use sails-postgresql on this database instead of sails-disk
//   SAILS_BENCH_MYSQL_URL      use sails-mysql on this database instead of sails-disk
//   SAILS_BENCH_DISK_DIR       folder for sails-disk's files (default .tmp/localDiskDb)
//   SAILS_LOG_LEVEL            default "warn", so logging costs what it costs in production
//   SAILS_BENCH_SOCKETS        "1": sockets and pubsub on (sails-hook-sockets, socket.io 4), as
//                              bench/realtime.sh's sails mode needs
'use strict';

const sails = require('sails');

const sockets = process.env.SAILS_BENCH_SOCKETS === '1';

sails.lift({
  appPath: __dirname,
  port: Number(process.env.PORT || 18637),
  explicitHost: '127.0.0.1',
  // The same environment bench/run.sh gives Skiff (SKIFF_ENV=development): shortcut routes on,
  // and migrate "drop" allowed (Sails forces "safe" in production).
  environment: 'development',
  log: { level: process.env.SAILS_LOG_LEVEL || 'warn' },
  // Only what a JSON blueprint API needs. Skiff's HTTP benchmark has no sessions, views or
  // sockets either: with no socket connected, Sails' pubsub has nothing to publish to, so
  // turning it off only spares Sails work that Skiff's realtime layer also skips when
  // nobody listens. CSRF and CORS are off by default in Sails 1 (config/security.js).
  // The realtime benchmark turns sockets and pubsub on (SAILS_BENCH_SOCKETS=1).
  hooks: {
    grunt: false,
    views: false,
    i18n: false,
    session: false,
    // sails-hook-sockets is installed, so Sails loads it unless told not to.
    ...(sockets ? {} : { sockets: false, pubsub: false }),
  },
}, (err) => {
  if (err) {
    console.error('sails: lift failed:', err);
    process.exit(1);
  }
  // Outside production Sails pretty-prints every JSON answer (json spaces 2); Skiff always
  // answers compact JSON, so compact here too, or Sails would pay for whitespace Skiff never
  // sends. (NODE_ENV=production would do it, but it also forces migrate: "safe".)
  sails.hooks.http.app.set('json spaces', undefined);
  console.log(`sails: lifted on 127.0.0.1:${sails.config.port} (datastore ${sails.config.datastores.default.adapter})`);
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => sails.lower(() => process.exit(0)));
}
