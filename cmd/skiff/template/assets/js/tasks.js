// A live list of tasks: find them over the socket (which makes the socket
// watch the task model), then apply the created / updated / destroyed
// notifications that other clients' changes cause.
(function () {
  'use strict';

  var tasks = new Map(); // id → record, in the order they arrived
  var list = document.getElementById('tasks');
  var empty = document.getElementById('empty');
  var status = document.getElementById('status');
  var error = document.getElementById('error');
  var form = document.getElementById('add');

  function setState(state, text) {
    document.body.dataset.state = state;
    status.textContent = text;
    status.className = state === 'live' ? 'live' : state === 'down' ? 'down' : '';
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text; // never innerHTML: titles come from anyone
    return e;
  }

  function row(task) {
    var li = el('li', task.done ? 'is-done' : '');
    li.dataset.id = task.id;
    li.appendChild(el('span', 'id', '#' + task.id));
    li.appendChild(el('span', 'name', task.title));
    if (task.done) li.appendChild(el('span', 'done', '✓ done'));
    li.addEventListener('click', function () { toggle(task); });
    return li;
  }

  function render(freshID) {
    list.replaceChildren();
    tasks.forEach(function (task) {
      var li = row(task);
      if (task.id === freshID) li.classList.add('fresh');
      list.appendChild(li);
    });
    list.hidden = tasks.size === 0;
    empty.hidden = tasks.size !== 0;
    if (document.body.dataset.state === 'live') status.textContent = 'live · ' + tasks.size;
  }

  function put(task) { tasks.set(task.id, Object.assign({}, tasks.get(task.id), task)); }

  io.socket.on('connect', function () { if (document.body.dataset.state === 'down') load(); });
  io.socket.on('disconnect', function () { setState('down', 'disconnected'); });

  // Notifications carry the model identity as event name.
  io.socket.on('task', function (msg) {
    switch (msg.verb) {
      case 'created':
        put(Object.assign({ id: msg.id }, msg.data));
        render(msg.id);
        break;
      case 'updated':
        if (tasks.has(msg.id)) { put(Object.assign({ id: msg.id }, msg.data)); render(msg.id); }
        break;
      case 'destroyed':
        tasks.delete(msg.id);
        render();
        break;
    }
  });

  function load() {
    setState('loading', 'loading…');
    io.socket.get('/task?limit=100', function (body, jwr) {
      if (jwr.statusCode !== 200) {
        setState('down', 'error ' + jwr.statusCode);
        return;
      }
      tasks.clear();
      body.forEach(put);
      setState('live', '');
      render();
    });
  }

  function toggle(task) {
    io.socket.patch('/task/' + task.id, { done: !task.done }, function (body, jwr) {
      if (jwr.statusCode !== 200) { error.textContent = 'Could not update the task (' + jwr.statusCode + ')'; return; }
      put(body);
      render(body.id);
    });
  }

  // Tasks added here come back in the answer: the socket that makes a
  // request never receives its own notification.
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var title = form.elements.namedItem('title');
    io.socket.post('/task', { title: title.value.trim() }, function (body, jwr) {
      if (jwr.statusCode !== 200) {
        error.textContent = (body && body.message) || ('Could not add the task (' + jwr.statusCode + ')');
        return;
      }
      error.textContent = '';
      title.value = '';
      put(body);
      render(body.id);
    });
  });

  load();
})();
