// The dashboard's entry: hash routes (#/login, #/ the farm, #/sessions/ID), the login form, and
// the one place a refused token leads: back to the login page, saying why.
import { call, onUnauthorized, token } from './api.js';
import { showError, template } from './dom.js';
import { farmPage } from './farm.js';
import { sessionPage } from './session.js';

const main = document.getElementById('main');
const statusLine = document.getElementById('status');
const who = document.getElementById('who');
const logout = document.getElementById('logout');
let leave = null; // tears down the page shown (its streams)
let loginMessage = '';

const status = (text) => (statusLine.textContent = text);

function route() {
  leave?.();
  leave = null;
  status('');
  const hash = location.hash || '#/';
  logout.hidden = !token.get();
  if (!token.get() || hash === '#/login') return loginPage();
  const session = /^#\/sessions\/(ses_[a-z0-9]+)$/.exec(hash);
  leave = session ? sessionPage(main, session[1], status) : farmPage(main, status);
  if (!who.textContent) whoami();
}

function loginPage() {
  const view = template('login');
  main.replaceChildren(view);
  who.textContent = '';
  showError(view, loginMessage);
  const input = view.querySelector('input');
  input.focus();
  view.querySelector('form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const secret = input.value.trim();
    showError(view, '');
    try {
      const me = await call('GET', '/v1/whoami', { token: secret });
      if (me.role === 'worker') return showError(view, 'A worker token only registers a host; log in with an admin, agent or viewer token.');
      token.set(secret);
      loginMessage = '';
      show(me);
      // Back to the page asked for (a session link opened before logging in), or the farm.
      if (location.hash === '#/login') location.hash = '#/';
      else route();
    } catch (err) {
      showError(view, err.text ?? String(err));
    }
  });
}

async function whoami() {
  try {
    show(await call('GET', '/v1/whoami'));
  } catch {
    // a 401 has already gone to onUnauthorized; anything else shows on the page's own streams
  }
}

function show(me) {
  who.textContent = `${me.name} · ${me.role} · team ${me.team}`;
}

onUnauthorized((err) => {
  if (!token.get()) return; // several calls refused at once: the first one leads
  token.clear();
  loginMessage = `Logged out: ${err.text}`;
  if (location.hash === '#/login') route();
  else location.hash = '#/login';
});

logout.addEventListener('click', () => {
  token.clear();
  loginMessage = '';
  location.hash = '#/login';
});

window.addEventListener('hashchange', route);
route();
