// The chat page, written as for a Sails 1.5 app: it logs in over its socket
// (the session is the page's own, through the sails.sid cookie the page
// load set), reads the last messages (which makes the socket watch the
// message model) and renders `created` notifications, whose data carries
// the sender as a record (blueprints.notificationFormat: sails).
(function () {
  'use strict';

  var list = document.getElementById('messages');
  var status = document.getElementById('status');
  var error = document.getElementById('error');
  var login = document.getElementById('login');
  var room = document.getElementById('room');
  var say = document.getElementById('say');
  var shown = new Set();

  // state is what the page is doing, for people (the badge) and for the
  // browser test (data-state on <body>).
  function setState(state, text) {
    document.body.dataset.state = state;
    status.textContent = text;
    status.className = state === 'chat' ? 'live' : '';
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text; // never innerHTML: text comes from anyone
    return e;
  }

  function show(message, fresh) {
    if (shown.has(message.id)) return;
    shown.add(message.id);
    var li = el('li');
    li.dataset.id = message.id;
    // A populated `user`, as Sails sends it; a bare key would print "undefined".
    li.appendChild(el('span', 'who', message.user.username + ':'));
    li.appendChild(el('span', 'text', message.text));
    if (fresh) li.classList.add('fresh');
    list.appendChild(li);
  }

  function fail(what, body, jwr) {
    error.textContent = what + ' failed (' + jwr.statusCode + '): ' + ((body && body.message) || body || '');
  }

  function enter(user) {
    error.textContent = '';
    if (!user) {
      login.hidden = false;
      room.hidden = true;
      setState('login', 'not logged in');
      login.elements.username.focus();
      return;
    }
    login.hidden = true;
    room.hidden = false;
    document.getElementById('me').textContent = user.username;
    setState('chat', 'live');
    say.elements.text.focus();
  }

  io.socket.on('message', function (msg) {
    if (msg.verb === 'created') show(msg.data, true);
  });
  io.socket.on('disconnect', function () { setState('down', 'disconnected'); });

  // sails.io.js queues these until its socket is connected.
  io.socket.get('/message', { sort: 'id DESC', limit: 50 }, function (messages, jwr) {
    if (jwr.statusCode !== 200) return fail('loading the messages', messages, jwr);
    messages.reverse().forEach(function (m) { show(m, false); });
    io.socket.get('/me', function (body, jwr) {
      if (jwr.statusCode !== 200) return fail('reading the session', body, jwr);
      enter(body.user);
    });
  });

  login.addEventListener('submit', function (e) {
    e.preventDefault();
    io.socket.post('/login', { username: login.elements.username.value }, function (user, jwr) {
      if (jwr.statusCode !== 200) return fail('logging in', user, jwr);
      login.reset();
      enter(user);
    });
  });

  say.addEventListener('submit', function (e) {
    e.preventDefault();
    io.socket.post('/message', { text: say.elements.text.value }, function (message, jwr) {
      if (jwr.statusCode !== 200) return fail('sending', message, jwr);
      say.reset();
      error.textContent = '';
      show(message, true); // the sender gets no notification of its own post
    });
  });

  document.getElementById('logout').addEventListener('click', function () {
    io.socket.post('/logout', function (body, jwr) {
      if (jwr.statusCode !== 200) return fail('logging out', body, jwr);
      enter(null);
    });
  });
}());
