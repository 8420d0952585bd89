// simfleet sample app. Plain JavaScript, no dependencies, no external loads. Every load starts
// from a fresh state; the URL (#/tab/path) says which screen to show. Screens:
//   #/inbox              large title, live clock and date, 200 messages loaded 20 at a time
//   #/inbox/<id>         a message; Delete opens an alert, Reply opens the compose sheet
//   #/search             a search field over the messages
//   #/search/<id>        a message opened from a result, on the Search tab (back: Search)
//   #/settings           switches, a radio group, a segmented control, a slider, links to:
//   #/settings/notifications, #/settings/privacy   identical structure, different titles
//   #/settings/form      a form taller than two screens; Submit shows what was submitted
//   #/settings/wizard    three steps; the review step looks like step one and submits for real
//   #/settings/icons     icon-only buttons, some named and some not
//   #/settings/canvas    a region drawn on a canvas
//   #/settings/arcade    a screen that is all canvas, as a game is (no back button)
//   #/settings/photo     a photo to pinch and rotate
//   #/settings/loading   a spinner that never stops
// ?rename-settings=NAME relabels the Settings tab (a renamed control, for replay tests).
// ?hide-tab-a11y=1 hides the tab buttons from accessibility (a tab bar the tree reports empty).
// ?ghost-text=1 draws everything transparent while the tree keeps it (a tree the pixels contradict).

(() => {
  const PUSH_MS = 350;
  const PAGE = 20;
  const TOTAL = 200;

  // ------------------------------------------------------------------ data (deterministic)
  const NAMES = [
    'Ada Lovelace',
    'Grace Hopper',
    'Alan Turing',
    'Katherine Johnson',
    'Linus Torvalds',
    'Margaret Hamilton',
    'Dennis Ritchie',
    'Barbara Liskov',
    'Ken Thompson',
    'Radia Perlman',
  ];
  const SUBJECTS = [
    'Weekly digest',
    'Payment received',
    'Build #4711 passed',
    'Lunch on Friday?',
    'Your order has shipped',
    'Design review notes',
    'Invitation: team offsite',
    'Password changed',
    'New comment on your post',
    'Quarterly report',
  ];
  const state = {
    messages: Array.from({ length: TOTAL }, (_, i) => ({
      id: i + 1,
      from: NAMES[(i * 7) % NAMES.length],
      subject: `${SUBJECTS[i % SUBJECTS.length]}${i >= SUBJECTS.length ? ` (${Math.floor(i / SUBJECTS.length) + 1})` : ''}`,
      preview: `Message ${i + 1}: a short preview of what this message is about.`,
      time: `${String(8 + (i % 10)).padStart(2, '0')}:${String((i * 13) % 60).padStart(2, '0')}`,
      unread: i % 3 === 0,
    })),
    loaded: 0,
    settings: { wifi: true, bluetooth: false, airplane: false, textSize: 'Medium', sort: 'Date', volume: 60 },
    sub: { notifications: { Allow: true, Sounds: true, Badges: false }, privacy: { Allow: false, Sounds: true, Badges: false } },
    wizard: { name: '', email: '', plan: 'Free' },
  };

  // ------------------------------------------------------------------ tiny DOM helper
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'text') el.textContent = v;
      else el.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) el.append(c.nodeType ? c : document.createTextNode(String(c)));
    return el;
  }
  const ICONS = {
    compose: '<path d="M4 20h4L19 9l-4-4L4 16z"/>',
    share: '<path d="M12 3v12M7 8l5-5 5 5M5 14v6h14v-6"/>',
    star: '<path d="M12 3l2.7 5.6 6.1.9-4.4 4.3 1 6.1L12 17l-5.4 2.9 1-6.1L3.2 9.5l6.1-.9z"/>',
    archive: '<path d="M3 5h18v4H3zM5 9v10h14V9M10 13h4"/>',
    trash: '<path d="M4 7h16M9 7V4h6v3M6 7l1 13h10l1-13"/>',
    reply: '<path d="M10 8L4 13l6 5M4 13h10a6 6 0 016 6"/>',
    more: '<circle cx="5" cy="12" r="1.5"/><circle cx="12" cy="12" r="1.5"/><circle cx="19" cy="12" r="1.5"/>',
    bell: '<path d="M6 16V11a6 6 0 0112 0v5l2 2H4zM10 20a2 2 0 004 0"/>',
    pin: '<path d="M12 21s-7-6-7-11a7 7 0 0114 0c0 5-7 11-7 11z"/><circle cx="12" cy="10" r="2.5"/>',
  };
  function icon(name) {
    const span = document.createElement('span');
    span.innerHTML = `<svg aria-hidden="true" viewBox="0 0 24 24">${ICONS[name]}</svg>`;
    return span.firstChild;
  }
  function iconButton(name, label, onclick) {
    return h('button', { class: 'icon', type: 'button', 'aria-label': label, 'data-testid': `icon-${name}`, onclick }, icon(name));
  }

  // ------------------------------------------------------------------ screens
  // A screen definition: { title, large, left, right, body(): Element, onShow, onHide }
  const screens = {
    inbox: () => {
      const list = h('ul', { class: 'list', role: 'list', 'aria-label': 'Messages', 'data-testid': 'inbox-list' });
      const loader = h('div', { class: 'loading', role: 'status' }, h('div', { class: 'spinner', 'aria-hidden': 'true' }), 'Loading messages…');
      const end = h('div', { class: 'end', hidden: true }, 'No more messages');
      let loading = false;
      const loadMore = () => {
        if (loading || state.loaded >= state.messages.length) return;
        loading = true;
        loader.hidden = false;
        setTimeout(
          () => {
            const next = state.messages.slice(state.loaded, state.loaded + PAGE);
            state.loaded += next.length;
            list.append(...next.map((m) => messageRow(m)));
            loading = false;
            loader.hidden = true;
            end.hidden = state.loaded < state.messages.length;
          },
          state.loaded === 0 ? 400 : 600,
        );
      };
      const body = h(
        'div',
        {},
        h('h1', { class: 'large-title', 'data-testid': 'title' }, 'Inbox'),
        h('div', { class: 'segmented filter', role: 'group', 'aria-label': 'Show' }, segButton('All', true), segButton('Unread', false)),
        list,
        loader,
        end,
      );
      return {
        title: 'Inbox',
        large: true,
        left: clock(),
        right: [iconButton('compose', 'Compose', () => openCompose())],
        body: () => body,
        onScroll: (content) => {
          if (content.scrollTop + content.clientHeight > content.scrollHeight - 240) loadMore();
        },
        onShow: () => {
          if (state.loaded === 0) loadMore();
          list.replaceChildren(...state.messages.slice(0, state.loaded).map((m) => messageRow(m)));
        },
      };
    },
    message: (id, back = 'Inbox') => {
      const m = state.messages.find((x) => x.id === Number(id));
      if (!m) return notFound(`No message ${id}`);
      m.unread = false;
      return {
        title: 'Message',
        back,
        right: [iconButton('reply', 'Reply', () => openCompose(m)), iconButton('more', 'More actions', () => toast('No more actions'))],
        body: () =>
          h(
            'div',
            {},
            h(
              'article',
              { class: 'message' },
              h('h2', {}, m.subject),
              h('div', { class: 'meta' }, `From ${m.from} at ${m.time}`),
              h('p', {}, m.preview),
              h('p', {}, 'This is the body of the message. It is long enough to read but says nothing that matters.'),
            ),
            h(
              'div',
              { class: 'actions' },
              h('button', { type: 'button', 'data-testid': 'reply', onclick: () => openCompose(m) }, 'Reply'),
              h('button', { type: 'button', class: 'destructive', 'data-testid': 'delete', onclick: () => confirmDelete(m) }, 'Delete'),
            ),
          ),
      };
    },
    search: () => {
      const results = h('ul', { class: 'list', role: 'list', 'aria-label': 'Results' });
      const empty = h('div', { class: 'end' }, 'Type to search your messages');
      const input = h('input', {
        type: 'search',
        'aria-label': 'Search messages',
        placeholder: 'Search',
        autocomplete: 'off',
        id: 'search-field',
        'data-testid': 'search-field',
      });
      input.addEventListener('input', () => {
        const q = input.value.trim().toLowerCase();
        const found = q ? state.messages.filter((m) => `${m.from} ${m.subject}`.toLowerCase().includes(q)).slice(0, 20) : [];
        results.replaceChildren(...found.map((m) => messageRow(m, 'search')));
        empty.textContent = q ? (found.length ? '' : 'No results') : 'Type to search your messages';
      });
      return {
        title: 'Search',
        large: true,
        body: () =>
          h(
            'div',
            {},
            h('h1', { class: 'large-title', 'data-testid': 'title' }, 'Search'),
            h('div', { class: 'form', style: 'padding-bottom:8px' }, input),
            results,
            empty,
          ),
      };
    },
    settings: () => ({
      title: 'Settings',
      large: true,
      body: () =>
        h(
          'div',
          {},
          h('h1', { class: 'large-title', 'data-testid': 'title' }, 'Settings'),
          h('div', { class: 'group-title', id: 'g-conn' }, 'Connectivity'),
          h(
            'div',
            { class: 'group', role: 'group', 'aria-labelledby': 'g-conn' },
            switchCell('Wi-Fi', 'wifi', state.settings),
            switchCell('Bluetooth', 'bluetooth', state.settings),
            switchCell('Airplane mode', 'airplane', state.settings),
          ),
          h('div', { class: 'group-title', id: 'g-size' }, 'Text size'),
          h(
            'div',
            { class: 'group', role: 'radiogroup', 'aria-labelledby': 'g-size' },
            ...['Small', 'Medium', 'Large'].map((v) => radioCell('textsize', v, state.settings.textSize === v, () => (state.settings.textSize = v))),
          ),
          h('div', { class: 'group-title', id: 'g-sort' }, 'Sort by'),
          h(
            'div',
            { class: 'segmented', role: 'group', 'aria-labelledby': 'g-sort' },
            ...['Date', 'Sender', 'Subject'].map((v) => segButton(v, state.settings.sort === v, () => (state.settings.sort = v))),
          ),
          h('div', { class: 'group-title', id: 'g-vol' }, 'Volume'),
          h(
            'div',
            { class: 'group slider' },
            h('input', {
              type: 'range',
              min: '0',
              max: '100',
              value: String(state.settings.volume),
              'aria-label': 'Volume',
              'data-testid': 'slider-volume',
              oninput: (e) => (state.settings.volume = Number(e.target.value)),
            }),
          ),
          h('div', { class: 'group-title' }, 'More'),
          h(
            'div',
            { class: 'group' },
            ...[
              ['Notifications', 'notifications'],
              ['Privacy', 'privacy'],
              ['Long form', 'form'],
              ['Sign up wizard', 'wizard'],
              ['Icon buttons', 'icons'],
              ['Canvas', 'canvas'],
              ['Photo', 'photo'],
              ['Loading', 'loading'],
            ].map(([label, path]) =>
              h(
                'button',
                { type: 'button', class: 'cell', 'data-testid': `link-${path}`, onclick: () => push(`settings/${path}`) },
                label,
                h('span', { class: 'chev', 'aria-hidden': 'true' }),
              ),
            ),
          ),
          h('div', { style: 'height:40px' }),
        ),
    }),
    sub: (key, title) => ({
      title,
      back: 'Settings',
      body: () =>
        h(
          'div',
          {},
          h('div', { class: 'group-title' }, 'Alerts'),
          h('div', { class: 'group' }, ...['Allow', 'Sounds', 'Badges'].map((l) => switchCell(l, l, state.sub[key]))),
          h('p', { class: 'end' }, 'Changes apply at once.'),
        ),
    }),
    form: () => ({
      title: 'Long form',
      back: 'Settings',
      body: () => {
        const form = h(
          'form',
          { class: 'form', novalidate: true, 'aria-label': 'Profile' },
          field('Full name', h('input', { name: 'name', type: 'text', autocomplete: 'off' })),
          field('Email', h('input', { name: 'email', type: 'email', autocomplete: 'off' })),
          h('div', { class: 'tall-spacer' }),
          field('Age', h('input', { name: 'age', type: 'number', min: '0', max: '150' })),
          field('Birthday', h('input', { name: 'birthday', type: 'date' })),
          h('div', { class: 'tall-spacer' }),
          field(
            'Country',
            h(
              'select',
              { name: 'country' },
              ...['Choose…', 'Germany', 'Japan', 'Kenya', 'Brazil', 'United States'].map((c, i) => h('option', { value: i ? c : '' }, c)),
            ),
          ),
          h('div', { class: 'tall-spacer' }),
          field('Comments', h('textarea', { name: 'comments' })),
          h('div', { class: 'tall-spacer' }),
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'agree', 'data-testid': 'field-agree' }), 'I agree to the terms'),
          h('div', { class: 'tall-spacer' }),
          h('button', { type: 'submit', class: 'primary', 'data-testid': 'submit' }, 'Submit'),
        );
        form.addEventListener('submit', (e) => {
          e.preventDefault();
          const data = new FormData(form);
          const shown = [
            ['Full name', data.get('name')],
            ['Email', data.get('email')],
            ['Age', data.get('age')],
            ['Birthday', data.get('birthday')],
            ['Country', data.get('country')],
            ['Comments', data.get('comments')],
            ['I agree to the terms', data.get('agree') ? 'yes' : 'no'],
          ];
          push('settings/form/submitted', { shown });
        });
        return form;
      },
    }),
    submitted: (shown) => ({
      title: 'Submitted',
      back: 'Long form',
      body: () =>
        h(
          'div',
          {},
          h('h2', { class: 'large-title', style: 'font-size:24px' }, 'Submitted'),
          h('dl', { class: 'result', 'aria-label': 'Submitted values' }, ...(shown || []).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v || '—')])),
        ),
    }),
    wizard: (step) => {
      const n = Number(step || 1);
      if (n === 1) {
        const name = h('input', { type: 'text', name: 'name', value: state.wizard.name, autocomplete: 'off' });
        const email = h('input', { type: 'email', name: 'email', value: state.wizard.email, autocomplete: 'off' });
        return {
          title: 'Sign up',
          back: 'Settings',
          body: () =>
            h(
              'div',
              { class: 'form' },
              h('p', {}, 'Step 1 of 3'),
              field('Name', name),
              field('Email', email),
              h(
                'button',
                {
                  type: 'button',
                  class: 'primary',
                  'data-testid': 'wizard-next',
                  onclick: () => {
                    state.wizard.name = name.value;
                    state.wizard.email = email.value;
                    push('settings/wizard/2');
                  },
                },
                'Next',
              ),
            ),
        };
      }
      if (n === 2) {
        return {
          title: 'Plan',
          back: 'Sign up',
          body: () =>
            h(
              'div',
              { class: 'form' },
              h('p', {}, 'Step 2 of 3'),
              h(
                'div',
                { class: 'group', role: 'radiogroup', 'aria-label': 'Plan' },
                ...['Free', 'Pro', 'Team'].map((p) => radioCell('plan', p, state.wizard.plan === p, () => (state.wizard.plan = p))),
              ),
              h('button', { type: 'button', class: 'primary', onclick: () => push('settings/wizard/3') }, 'Next'),
            ),
        };
      }
      if (n === 3) {
        return {
          title: 'Sign up',
          back: 'Plan',
          body: () =>
            h(
              'div',
              { class: 'form' },
              h('p', {}, 'Step 3 of 3'),
              field('Name', h('input', { type: 'text', readonly: true, value: state.wizard.name })),
              field('Email', h('input', { type: 'email', readonly: true, value: state.wizard.email })),
              h(
                'button',
                {
                  type: 'button',
                  class: 'primary',
                  'data-testid': 'wizard-submit',
                  onclick: () => {
                    state.wizard.submitted = true;
                    push('settings/wizard/done');
                  },
                },
                'Submit',
              ),
            ),
        };
      }
      return {
        title: 'Welcome',
        back: 'Sign up',
        body: () =>
          h(
            'div',
            { class: 'form' },
            h('h2', {}, 'Thank you'),
            h('p', { role: 'status' }, `Signed up ${state.wizard.name || 'someone'} on the ${state.wizard.plan} plan.`),
          ),
      };
    },
    icons: () => ({
      title: 'Icon buttons',
      back: 'Settings',
      body: () =>
        h(
          'div',
          { class: 'icons' },
          iconButton('share', 'Share', () => toast('Shared')),
          iconButton('star', 'Favourite', () => toast('Added to favourites')),
          iconButton('archive', 'Archive', () => toast('Archived')),
          iconButton('trash', 'Delete', () => toast('Deleted')),
          // Four buttons nobody named: only their pixels say what they do.
          ...['bell', 'pin', 'reply', 'more'].map((name) =>
            h('button', { class: 'icon', type: 'button', 'data-testid': `unnamed-${name}`, onclick: () => toast(`${name} tapped`) }, icon(name)),
          ),
        ),
    }),
    canvas: () => ({
      title: 'Canvas',
      back: 'Settings',
      body: () => {
        const c = h('canvas', { width: '340', height: '300', 'data-testid': 'game-canvas' });
        requestAnimationFrame(() => drawCanvas(c));
        return h('div', {}, h('p', { class: 'end' }, 'Everything in the box below is drawn, not built from elements.'), c);
      },
    }),
    // A screen drawn entirely, as a game is: no back button, nothing but the canvas for the tree to
    // see. The lone "B" in its corner is a badge, not a way back.
    arcade: () => ({
      title: 'Arcade',
      bare: true,
      body: () => {
        const c = h('canvas', { width: '360', height: '560', 'data-testid': 'arcade-canvas' });
        requestAnimationFrame(() => drawArcade(c));
        return c;
      },
    }),
    photo: () => ({ title: 'Photo', back: 'Settings', body: () => zoomable() }),
    loading: () => ({
      title: 'Loading',
      back: 'Settings',
      body: () => h('div', { class: 'forever', role: 'status' }, h('div', { class: 'spinner big', 'aria-hidden': 'true' }), 'Loading…'),
    }),
  };

  function notFound(text) {
    return { title: 'Not found', back: 'Back', body: () => h('p', { class: 'end' }, text) };
  }

  /** Route → screen definition. */
  function resolve(route, extra) {
    const [tab, a, b, c] = route.split('/');
    if (tab === 'inbox') return a ? screens.message(a) : screens.inbox();
    if (tab === 'search') return a ? screens.message(a, 'Search') : screens.search();
    if (tab === 'settings') {
      if (!a) return screens.settings();
      if (a === 'notifications') return screens.sub('notifications', 'Notifications');
      if (a === 'privacy') return screens.sub('privacy', 'Privacy');
      if (a === 'form') return b === 'submitted' ? screens.submitted(extra?.shown) : screens.form();
      if (a === 'wizard') return screens.wizard(b);
      if (screens[a]) return screens[a]();
      return notFound(`No page ${a}`);
    }
    void c;
    return notFound(`No page ${route}`);
  }

  // ------------------------------------------------------------------ widgets
  /** A message's row; tapped, it opens the message on the tab the row is shown on (`tab`). */
  function messageRow(m, tab = 'inbox') {
    const row = h(
      'button',
      { type: 'button', class: `row${m.unread ? ' unread' : ''}`, 'data-testid': `message-${m.id}` },
      h('span', { class: 'time' }, m.time),
      h('div', { class: 'from' }, m.from),
      h('div', { class: 'subject' }, m.subject),
      h('div', { class: 'preview' }, m.preview),
    );
    // A long press (held 500 ms without moving) shows the row's options instead of opening it.
    let timer = null;
    let longPressed = false;
    row.addEventListener(
      'touchstart',
      () => {
        longPressed = false;
        timer = setTimeout(() => {
          longPressed = true;
          toast(`Options for “${m.subject}”`);
        }, 500);
      },
      { passive: true },
    );
    for (const ev of ['touchmove', 'touchend', 'touchcancel']) row.addEventListener(ev, () => clearTimeout(timer), { passive: true });
    row.addEventListener('contextmenu', (e) => e.preventDefault());
    row.addEventListener('click', () => {
      // On its own tab: pushed onto another, hidden tab, it left that tab's Back with nothing to do.
      if (!longPressed) push(`${tab}/${m.id}`);
    });
    return h('li', {}, row);
  }
  let labelCount = 0;
  function switchCell(label, key, store) {
    const id = `lbl-${label.replace(/\W+/g, '-').toLowerCase()}-${++labelCount}`;
    const sw = h('button', {
      type: 'button',
      role: 'switch',
      class: 'switch',
      'aria-checked': String(Boolean(store[key])),
      'aria-labelledby': id,
      'data-testid': `switch-${String(key).toLowerCase()}`,
    });
    sw.addEventListener('click', () => {
      store[key] = !store[key];
      sw.setAttribute('aria-checked', String(store[key]));
    });
    return h('div', { class: 'cell' }, h('span', { id }, label), sw);
  }
  function radioCell(name, value, checked, onchange) {
    return h(
      'label',
      { class: 'radio' },
      h('input', { type: 'radio', name, value, checked, onchange, 'data-testid': `radio-${name}-${value.toLowerCase()}` }),
      value,
    );
  }
  function segButton(label, pressed, onselect) {
    const b = h('button', { type: 'button', 'aria-pressed': String(pressed), 'data-testid': `segment-${label.toLowerCase()}` }, label);
    b.addEventListener('click', () => {
      for (const sib of b.parentElement.children) sib.setAttribute('aria-pressed', String(sib === b));
      if (onselect) onselect();
    });
    return b;
  }
  function field(label, control) {
    if (control.name && !control.dataset.testid) control.dataset.testid = `field-${control.name}`;
    return h('label', { class: 'field' }, h('span', {}, label), control);
  }
  function clock() {
    const time = h('span', { class: 'time-now' });
    const date = h('span', { class: 'date-now' });
    const tick = () => {
      const now = new Date();
      time.textContent = now.toLocaleTimeString('en-GB', { hour12: false });
      date.textContent = now.toLocaleDateString('en-GB', { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' });
    };
    tick();
    setInterval(tick, 1000);
    return h('div', { class: 'clockline' }, time, h('br'), date);
  }
  function drawCanvas(c) {
    const g = c.getContext('2d');
    g.fillStyle = '#eef3fb';
    g.fillRect(0, 0, c.width, c.height);
    g.fillStyle = '#0a66d8';
    g.fillRect(110, 200, 120, 48);
    g.fillStyle = '#fff';
    g.font = 'bold 22px sans-serif';
    g.fillText('PLAY', 142, 232);
    g.fillStyle = '#111';
    g.font = '20px sans-serif';
    g.fillText('Score 120', 20, 40);
    g.fillStyle = '#ff9500';
    g.beginPath();
    g.arc(170, 120, 40, 0, Math.PI * 2);
    g.fill();
  }
  function drawArcade(c) {
    const g = c.getContext('2d');
    g.fillStyle = '#20232a';
    g.fillRect(0, 0, c.width, c.height);
    g.fillStyle = '#ffd60a';
    g.font = 'bold 28px sans-serif';
    g.fillText('B', 24, 48);
    g.fillStyle = '#ffffff';
    g.font = '22px sans-serif';
    g.fillText('Level 3', 130, 48);
    g.fillText('Lives 2', 130, 96);
    g.fillStyle = '#30d158';
    g.fillRect(100, 420, 160, 56);
    g.fillStyle = '#000000';
    g.font = 'bold 24px sans-serif';
    g.fillText('START', 140, 457);
  }
  function zoomable() {
    const photo = h('div', { class: 'photo', role: 'img', 'aria-label': 'Photo', 'data-testid': 'photo', 'data-scale': '1', 'data-rotation': '0' });
    const area = h('div', { class: 'zoom-area', 'data-testid': 'zoom-area' }, photo);
    let base = { scale: 1, rotation: 0 };
    let start = null;
    const geometry = (t) => ({
      d: Math.hypot(t[1].clientX - t[0].clientX, t[1].clientY - t[0].clientY),
      a: Math.atan2(t[1].clientY - t[0].clientY, t[1].clientX - t[0].clientX),
    });
    area.addEventListener('touchstart', (e) => {
      if (e.touches.length === 2) start = geometry(e.touches);
    });
    area.addEventListener(
      'touchmove',
      (e) => {
        if (e.touches.length !== 2 || !start) return;
        e.preventDefault();
        const now = geometry(e.touches);
        const scale = Math.min(4, Math.max(0.5, base.scale * (now.d / start.d)));
        const rotation = base.rotation + ((now.a - start.a) * 180) / Math.PI;
        photo.style.transform = `scale(${scale}) rotate(${rotation}deg)`;
        photo.dataset.scale = scale.toFixed(3);
        photo.dataset.rotation = rotation.toFixed(1);
      },
      { passive: false },
    );
    area.addEventListener('touchend', (e) => {
      if (e.touches.length < 2 && start) {
        base = { scale: Number(photo.dataset.scale), rotation: Number(photo.dataset.rotation) };
        start = null;
      }
    });
    // A double tap puts the photo back as it was.
    area.addEventListener('dblclick', () => {
      base = { scale: 1, rotation: 0 };
      photo.style.transform = '';
      photo.dataset.scale = '1';
      photo.dataset.rotation = '0';
    });
    return h('div', {}, h('p', { class: 'end' }, 'Pinch to zoom, turn with two fingers.'), area);
  }

  // ------------------------------------------------------------------ navigation
  // ?rename-settings=NAME shows the Settings tab under another label with its id unchanged: an app
  // update that renamed a control, for replays to stop at.
  const renamed = new URLSearchParams(location.search).get('rename-settings');
  if (renamed) document.querySelector('#tab-settings span').textContent = renamed;
  // ?hide-tab-a11y=1 hides the tab buttons from accessibility (they still work): a tab bar whose
  // tree reports no children, as some apps' do, for hit-test probing to recover.
  if (new URLSearchParams(location.search).get('hide-tab-a11y'))
    for (const b of document.querySelectorAll('.tabbar button')) b.setAttribute('aria-hidden', 'true');
  // ?ghost-text=1 draws nothing while the tree stays as it is (everything transparent): a tree that
  // does not match the pixels, as a stale one does, for the pixel tier to notice.
  if (new URLSearchParams(location.search).get('ghost-text')) {
    const style = document.createElement('style');
    style.textContent =
      'body, body * { color: transparent !important; background: transparent !important; border-color: transparent !important; box-shadow: none !important; fill: transparent !important; stroke: transparent !important; }';
    document.head.append(style);
  }
  const stacksEl = document.getElementById('stacks');
  const tabs = { inbox: [], search: [], settings: [] };
  const stackEls = {};
  let currentTab = 'inbox';
  for (const tab of Object.keys(tabs)) {
    stackEls[tab] = h('div', { class: 'stack', hidden: true, 'data-tab': tab });
    stacksEl.append(stackEls[tab]);
  }

  function build(route, def, depth) {
    const left = def.bare
      ? null
      : depth > 0
        ? h(
            'button',
            { type: 'button', class: 'back', 'data-testid': 'back', 'aria-label': `Back to ${def.back || 'previous'}`, onclick: () => history.back() },
            `‹ ${def.back || 'Back'}`,
          )
        : def.left || null;
    const navbar = h(
      'header',
      { class: 'navbar' },
      h('div', { class: 'side left' }, left),
      def.large ? null : h('h1', { 'data-testid': 'title' }, def.title),
      h('div', { class: 'side right' }, ...(def.right || [])),
    );
    const content = h('div', { class: 'content' }, def.body());
    if (def.onScroll) content.addEventListener('scroll', () => def.onScroll(content), { passive: true });
    const el = h('section', { class: 'screen', 'aria-label': def.title, 'data-route': route }, navbar, content);
    return { route, def, el, content };
  }

  function push(route, extra) {
    const tab = route.split('/')[0];
    const stack = tabs[tab];
    const below = stack[stack.length - 1];
    const entry = build(route, resolve(route, extra), stack.length);
    entry.el.classList.add('enter-from-right');
    stackEls[tab].append(entry.el);
    stack.push(entry);
    history.pushState({ route }, '', `#/${route}`);
    void entry.el.offsetWidth; // commit the start position so the transition runs
    entry.el.classList.remove('enter-from-right');
    if (below) {
      below.el.classList.add('exit-left');
      setTimeout(() => {
        if (stack[stack.length - 1] === entry) below.el.hidden = true;
      }, PUSH_MS);
    }
    if (entry.def.onShow) entry.def.onShow();
  }

  function pop() {
    const stack = tabs[currentTab];
    if (stack.length < 2) return false;
    const top = stack.pop();
    const below = stack[stack.length - 1];
    below.el.hidden = false;
    void below.el.offsetWidth;
    below.el.classList.remove('exit-left');
    top.el.classList.add('exit-right');
    setTimeout(() => top.el.remove(), PUSH_MS);
    if (top.def.onHide) top.def.onHide();
    if (below.def.onShow) below.def.onShow();
    return true;
  }

  function showTab(tab) {
    currentTab = tab;
    for (const [name, el] of Object.entries(stackEls)) el.hidden = name !== tab;
    for (const b of document.querySelectorAll('.tabbar [role=tab]')) b.setAttribute('aria-selected', String(b.dataset.tab === tab));
    if (tabs[tab].length === 0) {
      const root = build(tab, resolve(tab), 0);
      stackEls[tab].append(root.el);
      tabs[tab].push(root);
      if (root.def.onShow) root.def.onShow();
    }
  }

  /** Opens a deep link without animation: the tab's root, then every screen on the way. */
  function openRoute(route) {
    const parts = route.split('/').filter(Boolean);
    const tab = tabs[parts[0]] ? parts[0] : 'inbox';
    showTab(tab);
    const stack = tabs[tab];
    while (stack.length > 1) stack.pop().el.remove();
    stack[0].el.hidden = false;
    stack[0].el.classList.remove('exit-left');
    const prefixes = [];
    for (let i = 2; i <= parts.length; i++) prefixes.push(parts.slice(0, i).join('/'));
    for (const p of prefixes) {
      const below = stack[stack.length - 1];
      below.el.hidden = true;
      below.el.classList.add('exit-left');
      const entry = build(p, resolve(p), stack.length);
      stackEls[tab].append(entry.el);
      stack.push(entry);
      if (entry.def.onShow) entry.def.onShow();
    }
    history.replaceState({ route }, '', `#/${route || tab}`);
  }

  for (const b of document.querySelectorAll('.tabbar [role=tab]')) {
    b.addEventListener('click', () => {
      if (b.dataset.tab === currentTab) return;
      showTab(b.dataset.tab);
      const stack = tabs[currentTab];
      history.replaceState({ route: stack[stack.length - 1].route }, '', `#/${stack[stack.length - 1].route}`);
    });
  }

  // Hardware back (history back) pops the top screen, or closes an open sheet or alert first.
  window.addEventListener('popstate', () => {
    if (overlay.closeTop?.()) return;
    if (!pop()) openRoute((location.hash || '#/inbox').slice(2));
  });

  // ------------------------------------------------------------------ sheets, alerts, toasts
  const overlayEl = document.getElementById('overlay');
  const overlay = { closeTop: null };
  function openOverlay(panel, className) {
    const backdrop = h('div', { class: 'backdrop' });
    overlayEl.append(backdrop, panel);
    void panel.offsetWidth;
    backdrop.classList.add('shown');
    panel.classList.add('shown');
    document.getElementById('stacks').setAttribute('aria-hidden', 'true');
    history.pushState({ overlay: className }, '', location.hash);
    let closed = false;
    const close = () => {
      if (closed) return false;
      closed = true;
      backdrop.classList.remove('shown');
      panel.classList.remove('shown');
      document.getElementById('stacks').removeAttribute('aria-hidden');
      setTimeout(() => {
        backdrop.remove();
        panel.remove();
      }, PUSH_MS);
      overlay.closeTop = null;
      return true;
    };
    overlay.closeTop = close;
    // Closing from a button goes through history, so hardware back and buttons agree.
    return () => history.back();
  }
  function openCompose(replyTo) {
    const to = h('input', {
      type: 'email',
      name: 'to',
      value: replyTo ? `${replyTo.from.toLowerCase().replace(/\s+/g, '.')}@example.test` : '',
      autocomplete: 'off',
    });
    const subject = h('input', { type: 'text', name: 'subject', value: replyTo ? `Re: ${replyTo.subject}` : '', autocomplete: 'off' });
    const body = h('textarea', { name: 'body' });
    let close;
    const sheet = h(
      'div',
      { class: 'sheet', role: 'dialog', 'aria-modal': 'true', 'aria-label': 'New message' },
      h(
        'header',
        { class: 'navbar' },
        h('div', { class: 'side left' }, h('button', { type: 'button', class: 'back', onclick: () => close() }, 'Cancel')),
        h('h1', {}, 'New Message'),
        h(
          'div',
          { class: 'side right' },
          h(
            'button',
            {
              type: 'button',
              class: 'back',
              onclick: () => {
                close();
                toast('Message sent');
              },
            },
            'Send',
          ),
        ),
      ),
      h('div', { class: 'form' }, field('To', to), field('Subject', subject), field('Message', body)),
    );
    close = openOverlay(sheet, 'sheet');
  }
  function confirmDelete(m) {
    let close;
    const alert = h(
      'div',
      { class: 'alert', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': 'alert-title', 'aria-describedby': 'alert-text' },
      h('h2', { id: 'alert-title' }, 'Delete message?'),
      h('p', { id: 'alert-text' }, `“${m.subject}” will be deleted. This cannot be undone.`),
      h(
        'div',
        { class: 'buttons' },
        h('button', { type: 'button', 'data-testid': 'alert-cancel', onclick: () => close() }, 'Cancel'),
        h(
          'button',
          {
            type: 'button',
            class: 'destructive',
            'data-testid': 'alert-delete',
            onclick: () => {
              state.messages = state.messages.filter((x) => x !== m);
              state.loaded = Math.min(state.loaded, state.messages.length);
              close();
              setTimeout(() => {
                history.back();
                toast('Message deleted');
              }, 50);
            },
          },
          'Delete',
        ),
      ),
    );
    close = openOverlay(alert, 'alert');
  }
  let toastTimer;
  function toast(text) {
    const t = document.getElementById('toast');
    t.textContent = text;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => (t.hidden = true), 2000);
  }

  openRoute((location.hash || '#/inbox').slice(2));
})();
