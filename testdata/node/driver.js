#!/usr/bin/env node
// driver.js runs a realtime scenario against a Skiff server with the real
// socket.io clients, and prints what happened as JSON lines on stdout, for
// acceptance_node_test.go to check.
//
// Usage: node driver.js <server url>[,<server url>...] < scenario.json
//
// Several URLs are instances of one app linked by a bus: a client with
// "instance": i connects to the i-th (default the first), an HTTP step
// with "instance": i goes to it (default the last). Then each client's
// barrier is GET /__skiff_cluster_barrier?token=n, whose handler sends the
// client a "__barrier" event {token: n} from every instance; the client
// waits for all of them (each instance's messages arrive in order).
//
// The scenario (written by the Go test) names the clients and the steps:
//
//   {"clients": {"W": {"stack": "sails"}, "R": {"stack": "v4", "query": {...}}},
//    "events": ["user", "pet"],
//    "steps": [{"client": "R", "method": "post", "url": "/user", "data": {...}, "save": "u1"},
//              {"http": true, "method": "patch", "url": "/user/{u1}", "data": {...}},
//              {"client": "R", "emit": "get", "envelope": {...}},
//              {"client": "R", "heartbeats": 3, "method": "get", "url": "/user"}]}
//
// Stacks: "sails" is sails.io.js 1.2.1 on socket.io-client 2.5.0 (Engine.IO
// v3), set up as its README says for Node; "v4" is socket.io-client 4
// (Engine.IO v4) sending sails.io.js-style virtual requests by hand, with
// the SDK query sails.io.js sends unless the client gives its own "query".
//
// "{name}" in a url, and "{name}" as a whole JSON string in data or
// headers, stand for the id saved by an earlier step's "save" (the id of
// its answer's body). A client with "cookieFrom": path first GETs that path
// over HTTP and connects with the session cookie it set; its "save" names
// the _csrf token of that answer.
// "close": true disconnects the client, which takes no further part.
// "emit" + "envelope" sends a raw event (v4 clients only) to test what
// sails.io.js would never send. "heartbeats": n first waits for n
// Engine.IO ping/pong exchanges on that client's connection.
//
// Output, one JSON object a line:
//   {"type": "connected", "client": "W", "stack": "sails"}
//   {"type": "step", "i": 0, "ack": {...}, "saved": {"u1": 3}, "events": {"W": [{"event": "user", "data": {...}}], "R": []}}
//   {"type": "done"}
// or {"type": "error", "message": "..."} and exit status 1.
//
// After each step every client sends one more request and waits for its
// answer before the step is reported: the server queues a client's
// notifications and answers in order, so whatever the step made it send
// to that client has arrived by then. No timers are involved.
'use strict';

const requestTimeout = 10000; // ms; the Go test bounds the whole run too

function out(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function fail(err) {
  out({ type: 'error', message: String(err && err.stack || err) });
  process.exit(1);
}

process.on('unhandledRejection', fail);
process.on('uncaughtException', fail);

const sdkQuery = {
  __sails_io_sdk_version: '1.2.1',
  __sails_io_sdk_platform: 'node',
  __sails_io_sdk_language: 'javascript',
};

// sailsIO builds sails.io.js once, as its README shows for Node.
let sailsIO;
function sails(url) {
  if (!sailsIO) {
    sailsIO = require('sails.io.js')(require('socket.io-client'));
    sailsIO.sails.url = url;
    sailsIO.sails.environment = 'production'; // no banner on stdout
    sailsIO.sails.reconnection = false;
    // useCORSRouteToGetCookie stays on, as in browsers; from Node sails.io.js
    // never fetches /__getcookie (there is no window.location to be
    // cross-origin from).
  }
  return sailsIO;
}

function withTimeout(what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(what + ': no answer within ' + requestTimeout + ' ms')), requestTimeout);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// A Client wraps one socket of either stack behind the same small API.
class Client {
  // cookie, when given, is sent with the handshake: the way sails.io.js
  // documents for Node (initialConnectionHeaders) to share an HTTP session.
  constructor(name, spec, url, eventNames, cookie, instances) {
    this.name = name;
    this.stack = spec.stack;
    this.events = [];
    this.instances = instances || 1;
    this.barrierSeq = 0;
    this.barrierWait = null;
    const record = (event, data) => {
      if (event === '__barrier') return this.onBarrier(data);
      this.events.push({ event, data });
    };
    if (spec.stack === 'sails') {
      const io = sails(url);
      // The first sails client is io.socket, auto-connected; more sockets
      // come from io.sails.connect, as sails.io.js documents.
      if (!io.socket || io.socket._usedByDriver || cookie) {
        const opts = { reconnection: false, query: spec.query };
        if (cookie) opts.initialConnectionHeaders = { cookie };
        this.socket = io.sails.connect(url, opts);
      } else {
        this.socket = io.socket;
        this.socket._usedByDriver = true;
      }
      for (const ev of eventNames.concat(this.instances > 1 ? ['__barrier'] : [])) {
        this.socket.on(ev, (data) => record(ev, data));
      }
    } else if (spec.stack === 'v4') {
      const { io } = require('socket.io-client-v4');
      this.socket = io(url, {
        transports: ['websocket'],
        reconnection: false,
        forceNew: true,
        query: spec.query || sdkQuery,
        extraHeaders: cookie ? { cookie } : undefined,
      });
      this.socket.onAny((ev, data) => record(ev, data));
    } else {
      throw new Error('client ' + name + ': unknown stack ' + JSON.stringify(spec.stack));
    }
  }

  connected() {
    return withTimeout(this.name + ' connecting', new Promise((resolve, reject) => {
      if (this.stack === 'sails') {
        if (this.socket.isConnected()) return resolve();
        this.socket.on('connect', resolve);
        this.socket.on('connect_error', (err) => reject(new Error(this.name + ': ' + err)));
      } else {
        if (this.socket.connected) return resolve();
        this.socket.on('connect', resolve);
        this.socket.on('connect_error', (err) => reject(new Error(this.name + ': ' + err.message)));
        this.socket.io.on('close', (reason) => reject(new Error(this.name + ': closed before connecting: ' + reason)));
      }
    }));
  }

  // request sends a virtual request and resolves to what the client made
  // of the answer: for sails.io.js its (body, jwr) callback arguments, for
  // socket.io-client 4 the raw ack.
  request(method, url, data, headers) {
    return withTimeout(this.name + ' ' + method + ' ' + url, new Promise((resolve) => {
      if (this.stack === 'sails') {
        const done = (body, jwr) => resolve({
          body,
          jwr: { body: jwr.body, headers: jwr.headers, statusCode: jwr.statusCode, error: jwr.error ? String(jwr.error.message) : null },
        });
        if (headers) {
          this.socket.request({ method, url, data, headers }, done);
        } else {
          // The verb methods apps call: io.socket.get(url, data, cb) etc.
          this.socket[method](url, data, done);
        }
      } else {
        this.socket.emit(method, { method, url, data: data || {}, headers: headers || {} }, (ack) => resolve({ raw: ack }));
      }
    }));
  }

  // emit sends a raw event with an ack (socket.io-client 4 only).
  emit(event, envelope) {
    if (this.stack !== 'v4') throw new Error(this.name + ': raw emits need a v4 client');
    return withTimeout(this.name + ' emit ' + event, new Promise((resolve) => {
      this.socket.emit(event, envelope, (ack) => resolve({ raw: ack }));
    }));
  }

  // heartbeats resolves once n heartbeats have completed: with Engine.IO
  // v3 the client pings and the server's pong arrives; with v4 the server
  // pings (the client answers it by itself).
  heartbeats(n) {
    const manager = this.stack === 'sails' ? this.socket._raw.io : this.socket.io;
    const event = this.stack === 'sails' ? 'pong' : 'ping';
    return withTimeout(this.name + ' waiting for ' + n + ' heartbeats', new Promise((resolve) => {
      let seen = 0;
      const onBeat = () => {
        if (++seen < n) return;
        manager.off(event, onBeat);
        resolve();
      };
      manager.on(event, onBeat);
    }));
  }

  // drain waits until everything the server sent before now has arrived
  // (see the top of the file), then hands over the events received.
  async drain() {
    if (this.instances > 1) {
      const token = ++this.barrierSeq;
      const arrived = new Promise((resolve) => { this.barrierWait = { token, left: this.instances, resolve }; });
      await this.request('get', '/__skiff_cluster_barrier?token=' + token);
      await withTimeout(this.name + ' waiting for every instance\'s barrier', arrived);
    } else {
      await this.request('get', '/__skiff_acceptance_barrier');
    }
    const got = this.events;
    this.events = [];
    return got;
  }

  onBarrier(data) {
    const w = this.barrierWait;
    if (w && data && data.token === w.token && --w.left === 0) {
      this.barrierWait = null;
      w.resolve();
    }
  }

  close() {
    this.socket.disconnect();
  }
}

function substitute(text, saved) {
  return text.replace(/"\{(\w+)\}"|\{(\w+)\}/g, (whole, quoted, bare) => {
    const name = quoted || bare;
    if (!(name in saved)) throw new Error('no saved id named ' + name);
    return quoted ? JSON.stringify(saved[name]) : String(saved[name]);
  });
}

async function httpRequest(base, method, url, data) {
  const init = { method: method.toUpperCase(), headers: {} };
  if (data !== undefined) {
    init.body = JSON.stringify(data);
    init.headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + url, init);
  const text = await res.text();
  let body = text;
  try { body = JSON.parse(text); } catch (e) { /* not JSON: keep the text */ }
  return { http: { statusCode: res.status, body } };
}

function statusOf(ack) {
  if (ack.jwr) return ack.jwr.statusCode;
  return ack.raw && ack.raw.statusCode;
}

function bodyOf(ack) {
  if (ack.http) return ack.http.body;
  if (ack.jwr) return ack.jwr.body;
  return ack.raw && ack.raw.body;
}

async function main() {
  if (!process.argv[2]) throw new Error('usage: node driver.js <server url>[,<server url>...] < scenario.json');
  const urls = process.argv[2].split(',');
  const at = (i, def) => {
    const u = urls[i === undefined ? def : i];
    if (!u) throw new Error('no instance ' + i + ' (' + urls.length + ' URLs)');
    return u;
  };
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const scenario = JSON.parse(input);
  const eventNames = scenario.events || [];

  const clients = {};
  const saved = {};
  for (const [name, spec] of Object.entries(scenario.clients)) {
    let cookie;
    if (spec.cookieFrom) {
      // As sails.io.js advises for Node: an HTTP request first, for the
      // session cookie (and here the JSON body's _csrf token, saved).
      const res = await fetch(at(spec.instance, 0) + spec.cookieFrom);
      const set = res.headers.get('set-cookie');
      if (!res.ok || !set) throw new Error(name + ': GET ' + spec.cookieFrom + ' answered ' + res.status + ' without a cookie');
      cookie = set.split(';')[0];
      const body = await res.json();
      if (spec.save) saved[spec.save] = body._csrf;
    }
    clients[name] = new Client(name, spec, at(spec.instance, 0), eventNames, cookie, urls.length);
  }
  for (const c of Object.values(clients)) {
    await c.connected();
    out({ type: 'connected', client: c.name, stack: c.stack });
  }

  for (const [i, step] of scenario.steps.entries()) {
    const url = substitute(step.url || '', saved);
    const data = step.data === undefined ? undefined : JSON.parse(substitute(JSON.stringify(step.data), saved));
    const headers = step.headers === undefined ? undefined : JSON.parse(substitute(JSON.stringify(step.headers), saved));
    let ack;
    if (step.close) {
      const c = clients[step.client];
      if (!c) throw new Error('step ' + i + ': no client ' + step.client);
      c.close();
      delete clients[step.client];
      ack = {};
    } else if (step.http) {
      ack = await httpRequest(at(step.instance, urls.length - 1), step.method, url, data);
    } else {
      const c = clients[step.client];
      if (!c) throw new Error('step ' + i + ': no client ' + step.client);
      if (step.heartbeats) await c.heartbeats(step.heartbeats);
      if (step.emit) {
        ack = await c.emit(step.emit, step.envelope === undefined ? undefined : JSON.parse(substitute(JSON.stringify(step.envelope), saved)));
      } else if (step.repeat) {
        // That many copies at once, "#" in data numbering them; the
        // step's ack is the first one's, with every status.
        const copies = [];
        for (let n = 0; n < step.repeat; n++) {
          const copy = data === undefined ? undefined : JSON.parse(JSON.stringify(data).split('#').join(String(n)));
          copies.push(c.request(step.method, url, copy, headers));
        }
        const acks = await Promise.all(copies);
        ack = Object.assign({}, acks[0], { statuses: acks.map(statusOf) });
      } else {
        ack = await c.request(step.method, url, data, headers);
      }
    }
    const stepSaved = {};
    if (step.save) {
      const body = bodyOf(ack);
      if (!body || body.id === undefined) throw new Error('step ' + i + ': nothing to save as ' + step.save + ' in ' + JSON.stringify(ack));
      saved[step.save] = stepSaved[step.save] = body.id;
    }
    const events = {};
    await Promise.all(Object.values(clients).map(async (c) => { events[c.name] = await c.drain(); }));
    out({ type: 'step', i, ack, saved: stepSaved, events });
  }

  for (const c of Object.values(clients)) c.close();
  out({ type: 'done' });
  process.exit(0);
}

main().catch(fail);
