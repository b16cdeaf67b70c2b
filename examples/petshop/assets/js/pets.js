// A live list of pets: find them over the socket (which makes the socket
// watch the pet model), then apply the created / updated / destroyed
// notifications that other clients' changes cause.
(function () {
  'use strict';

  var pets = new Map(); // id → record, in the order they arrived
  var list = document.getElementById('pets');
  var empty = document.getElementById('empty');
  var status = document.getElementById('status');
  var error = document.getElementById('error');
  var form = document.getElementById('add');

  // state is what the page is doing, for people (the status badge) and for
  // the browser test (data-state on <body>).
  function setState(state, text) {
    document.body.dataset.state = state;
    status.textContent = text;
    status.className = state === 'live' ? 'live' : state === 'down' ? 'down' : '';
  }

  function el(tag, className, text) {
    var e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text; // never innerHTML: names come from anyone
    return e;
  }

  function row(pet) {
    var li = el('li');
    li.dataset.id = pet.id;
    li.appendChild(el('span', 'id', '#' + pet.id));
    li.appendChild(el('span', 'name', pet.name));
    li.appendChild(el('span', 'species', pet.species || '?'));
    if (pet.vaccinated) li.appendChild(el('span', 'vaccinated', '✓ vaccinated'));
    return li;
  }

  function render(freshID) {
    list.replaceChildren();
    pets.forEach(function (pet) {
      var li = row(pet);
      if (pet.id === freshID) li.classList.add('fresh');
      list.appendChild(li);
    });
    list.hidden = pets.size === 0;
    empty.hidden = pets.size !== 0;
    if (document.body.dataset.state === 'live') status.textContent = liveText();
  }

  function liveText() { return 'live · ' + pets.size + (pets.size === 1 ? ' pet' : ' pets'); }

  function put(pet) { pets.set(pet.id, Object.assign({}, pets.get(pet.id), pet)); }

  io.socket.on('connect', function () { if (document.body.dataset.state === 'down') load(); });
  io.socket.on('disconnect', function () { setState('down', 'disconnected'); });

  // Notifications carry the model identity as event name.
  io.socket.on('pet', function (msg) {
    switch (msg.verb) {
      case 'created':
        put(Object.assign({ id: msg.id }, msg.data));
        render(msg.id);
        break;
      case 'updated':
        if (pets.has(msg.id)) { put(Object.assign({ id: msg.id }, msg.data)); render(msg.id); }
        break;
      case 'destroyed':
        pets.delete(msg.id);
        render();
        break;
      // addedTo / removedFrom concern tags, which this list does not show.
    }
  });

  function load() {
    setState('loading', 'loading…');
    io.socket.get('/pet?limit=100', function (body, jwr) {
      if (jwr.statusCode !== 200) {
        setState('down', 'error ' + jwr.statusCode);
        return;
      }
      pets.clear();
      body.forEach(put);
      setState('live', '');
      render();
    });
  }

  // Pets added here come back in the answer: the socket that makes a
  // request never receives its own notification.
  form.addEventListener('submit', function (ev) {
    ev.preventDefault();
    var name = form.elements.namedItem('name');
    var data = { name: name.value.trim(), species: form.elements.namedItem('species').value };
    io.socket.post('/pet', data, function (body, jwr) {
      if (jwr.statusCode !== 200) {
        error.textContent = (body && body.message) || ('Could not add the pet (' + jwr.statusCode + ')');
        return;
      }
      error.textContent = '';
      name.value = '';
      put(body);
      render(body.id);
    });
  });

  load();
})();
